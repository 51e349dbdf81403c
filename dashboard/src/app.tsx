/** The page: header, the room list and the room the hash names. */
import { useEffect } from 'preact/hooks';
import { useLive } from './live/context.js';
import { href, navigate, useRoute } from './router.js';
import { rooms } from './rooms/index.js';
import { Header } from './ui/header.js';

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}

/** Keys 1–9 and 0 open the rooms in the order listed, unless a field has the focus. */
function useRoomKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      const index = e.key === '0' ? 9 : Number(e.key) - 1;
      const room = Number.isInteger(index) ? rooms[index] : undefined;
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
  const live = useLive();
  useRoomKeys();
  const room = rooms.find((r) => r.id === route.room) ?? rooms[0]!;
  useEffect(() => {
    document.title = `${room.label} · ${live.snapshot?.org?.name ?? 'svc'}`;
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
            {rooms.map((r, i) => (
              <li key={r.id}>
                <a
                  href={href(r.id)}
                  aria-current={r.id === room.id ? 'page' : undefined}
                  aria-keyshortcuts={String((i + 1) % 10)}
                >
                  <span class="key" aria-hidden="true">
                    {(i + 1) % 10}
                  </span>{' '}
                  {r.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1} aria-label={room.label}>
          {live.problem ? (
            <p class="notice error" role="alert">
              {live.problem}
            </p>
          ) : null}
          {live.snapshot?.health && !live.snapshot.health.configured ? (
            <p class="notice">
              This node has no company yet. Push one with{' '}
              <code>svc config put ops/company.example.yaml --create --summary "first"</code>.
            </p>
          ) : null}
          <Room route={route} />
        </main>
      </div>
    </>
  );
}
