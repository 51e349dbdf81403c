/** The page: header, the room list and the room the hash names. */
import { useEffect, useLayoutEffect } from 'preact/hooks';
import { useLiveSlice } from './live/context.js';
import { href, navigate, useRoute } from './router.js';
import { menu, rooms } from './rooms/index.js';
import { Header } from './ui/header.js';
import { NodeNotices } from './ui/node-notices.js';

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}

/** Keys 1–9 and 0 open the first ten rooms in the order listed, letters the rest, unless a field has the focus. */
function useRoomKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      const room = menu.find((r) => r.shortcut !== '' && r.shortcut === e.key);
      if (room) {
        e.preventDefault();
        navigate(room.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function App() {
  const route = useRoute();
  // The page around the room draws the notices and the title, not the frames the room follows.
  const live = useLiveSlice((s) => ({
    // An empty name (an unconfigured node) reads as the product's.
    company: s.snapshot?.org?.name || 'svc',
    tokenDropped: s.tokenDropped,
    problem: s.problem,
  }));
  useRoomKeys();
  const room = rooms.find((r) => r.id === route.room) ?? rooms[0]!;
  const company = live.company;
  // Two seats (or items) open in two tabs are told apart by their titles.
  const subject = room.titled === true ? (route.rest[0] ?? '') : '';
  useEffect(() => {
    document.title = `${room.label}${subject === '' ? '' : ` ${subject}`} · ${company}`;
  }, [room.id, subject, company]);
  useLayoutEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [room.id]);
  const Room = room.view;
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to the room
      </a>
      <Header />
      <div class="layout">
        <nav aria-label="Rooms">
          <ul>
            {menu.map((r) => (
              <li key={r.id}>
                <a
                  href={href(r.id)}
                  aria-current={r.id === (room.under ?? room.id) ? 'page' : undefined}
                  aria-keyshortcuts={r.shortcut || undefined}
                >
                  <span class="key" aria-hidden="true">
                    {r.shortcut}
                  </span>{' '}
                  {r.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1} aria-label={room.label}>
          <h1 class="room-title">{room.label}</h1>
          {live.tokenDropped ? (
            <p class="notice error" role="alert">
              The operator token was not accepted, so it was dropped.
            </p>
          ) : null}
          {live.problem ? (
            <p class="notice error" role="alert">
              {live.problem}
            </p>
          ) : null}
          <NodeNotices />
          <Room route={route} />
        </main>
      </div>
    </>
  );
}
