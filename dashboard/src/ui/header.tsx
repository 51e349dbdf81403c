/** The top bar: the company and node, the link state, the token form and the theme switch. */
import type { Ref } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useConnection, useLiveSlice } from '../live/context.js';
import { authHeaders, writeToken } from '../live/token.js';
import { Badge } from './parts.js';

type Theme = 'auto' | 'light' | 'dark';
const themeKey = 'svc.theme';

export function initialTheme(): Theme {
  try {
    const saved = localStorage.getItem(themeKey);
    return saved === 'light' || saved === 'dark' ? saved : 'auto';
  } catch {
    return 'auto';
  }
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset['theme'] = theme;
  try {
    localStorage.setItem(themeKey, theme);
  } catch {
    // Not kept: the choice lasts for this page.
  }
}

const linkText = {
  connecting: 'connecting',
  live: 'live',
  polling: 'polling',
  offline: 'offline',
  // The words the rooms use for it ("a token is needed"): the node is up, it answered 401.
  'token-needed': 'token needed',
} as const;

/** A token no `Authorization` header can carry (a character past Latin-1, a control character): never sendable. */
function unsendable(token: string): boolean {
  try {
    new Headers(authHeaders(token));
    return false;
  } catch {
    return true;
  }
}

/**
 * Whether the node takes `token` (a present, wrong token is refused on every route); null when it cannot
 * tell. An unsendable token is refused here: fetch would throw as for an unreachable node, and the token
 * would be held while every guarded read fails as if the node were down.
 */
async function accepted(token: string): Promise<boolean | 'unsendable' | null> {
  if (unsendable(token)) return 'unsendable';
  try {
    const res = await fetch('/viewer', { headers: authHeaders(token), cache: 'no-store' });
    return res.status !== 401;
  } catch {
    return null;
  }
}

function TokenForm() {
  const connection = useConnection();
  const [draft, setDraft] = useState('');
  const [refused, setRefused] = useState<false | 'refused' | 'unsendable'>(false);
  // The form follows the connection's token, which changes outside this component's state.
  const [, rerender] = useState(0);
  // Entering or forgetting the token swaps the form: the focus follows to what replaced the control used,
  // in the same commit (a layout effect).
  const [moved, setMoved] = useState(false);
  const forget = useRef<HTMLButtonElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const held = connection.hasToken;
  // A token the connection drops swaps the form too: when the focus was in it, it follows to the field, not
  // the page. Read as this render begins, before the commit removes the focused control (`shown` is the one
  // drawn last).
  const shown = useRef<HTMLElement>(null);
  const wasHeld = useRef(held);
  const swappedUnderFocus = useRef(false);
  if (wasHeld.current !== held) {
    swappedUnderFocus.current = shown.current?.contains(document.activeElement) ?? false;
    wasHeld.current = held;
  }
  useLayoutEffect(() => {
    if (!moved && !swappedUnderFocus.current) return;
    swappedUnderFocus.current = false;
    if (moved) setMoved(false);
    (held ? forget.current : field.current)?.focus();
  }, [moved, held]);
  // The connection decides: a held token the node later refuses is dropped there.
  if (held)
    return (
      <div class="token" ref={shown as Ref<HTMLDivElement>}>
        <span class="muted">operator token held for this tab</span>
        <button
          type="button"
          ref={forget}
          onClick={() => {
            writeToken(null);
            connection.useToken(null);
            setMoved(true);
            rerender((n) => n + 1);
          }}
        >
          Forget token
        </button>
      </div>
    );
  return (
    <form
      class="token"
      ref={shown as Ref<HTMLFormElement>}
      onSubmit={(e) => {
        e.preventDefault();
        const token = draft.trim();
        if (token === '') return;
        void accepted(token).then((ok) => {
          if (ok === false || ok === 'unsendable') return setRefused(ok === false ? 'refused' : ok);
          // Unreachable node: held all the same; the connection drops it if the node refuses it later.
          writeToken(token);
          connection.useToken(token);
          setDraft('');
          setRefused(false);
          setMoved(true);
          rerender((n) => n + 1);
        });
      }}
    >
      <label>
        Operator token
        <input
          ref={field}
          type="password"
          autocomplete="off"
          value={draft}
          onInput={(e) => {
            setDraft(e.currentTarget.value);
            setRefused(false);
          }}
          placeholder="read-only without one"
          aria-invalid={refused !== false}
          aria-describedby={refused ? 'token-refused' : undefined}
        />
      </label>
      <button type="submit">Use token</button>
      {refused ? (
        <span id="token-refused" class="error" role="alert">
          {refused === 'unsendable'
            ? 'This token has characters no request can carry (a curly quote?); paste it as plain text.'
            : 'This token is not accepted by the node.'}
        </span>
      ) : null}
    </form>
  );
}

/**
 * Words for a polite live region, changed only when the node's health status changes from one known value
 * to another: silent at load, and the 5 s pulse, which redraws nothing when its status is the same, adds
 * nothing to read. The badge itself is not live (its one word would be read without saying what it is).
 */
function useHealthChange(status: string | undefined): string {
  const last = useRef(status);
  const [words, setWords] = useState('');
  useEffect(() => {
    const was = last.current;
    if (status === undefined) return;
    last.current = status;
    if (was !== undefined && was !== status) setWords(`Node health ${status}, was ${was}`);
  }, [status]);
  return words;
}

export function Header() {
  // What the bar shows of health (its node and status), not the whole pulse: an unchanged pulse draws nothing.
  const live = useLiveSlice((s) => ({
    company: s.snapshot?.org?.name || 'svc',
    node: s.snapshot?.health?.node,
    status: s.snapshot?.health?.status,
    link: s.link,
  }));
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const healthChange = useHealthChange(live.status);
  return (
    <header class="top">
      <div class="brand">
        <img src="/favicon.ico" alt="" width={24} height={24} />
        <span class="company">{live.company}</span>
        {live.node !== undefined ? <span class="muted">node {live.node}</span> : null}
        <span class={`link link-${live.link}`} role="status" aria-live="polite" data-link={live.link}>
          {linkText[live.link]}
        </span>
        {live.status !== undefined ? <Badge value={live.status} title="health status" /> : null}
        {/* Always in the page: a live region added with its words is often not announced. */}
        <span class="visually-hidden" role="status" data-announce="health">
          {healthChange}
        </span>
      </div>
      <div class="controls">
        <TokenForm />
        <label>
          Theme
          <select
            value={theme}
            onChange={(e) => {
              const next = e.currentTarget.value as Theme;
              setTheme(next);
              applyTheme(next);
            }}
          >
            <option value="auto">system</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
      </div>
    </header>
  );
}
