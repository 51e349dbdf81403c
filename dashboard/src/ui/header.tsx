/** The top bar: the company and node, the link state, the token form and the theme switch. */
import { useState } from 'preact/hooks';
import { useConnection, useLive } from '../live/context.js';
import { readToken, writeToken } from '../live/token.js';
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
} as const;

function TokenForm() {
  const connection = useConnection();
  const [held, setHeld] = useState(readToken() !== null);
  const [draft, setDraft] = useState('');
  if (held)
    return (
      <div class="token">
        <span class="muted">operator token held for this tab</span>
        <button
          type="button"
          onClick={() => {
            writeToken(null);
            connection.useToken(null);
            setHeld(false);
          }}
        >
          Forget token
        </button>
      </div>
    );
  return (
    <form
      class="token"
      onSubmit={(e) => {
        e.preventDefault();
        if (draft.trim() === '') return;
        writeToken(draft);
        connection.useToken(draft.trim());
        setDraft('');
        setHeld(true);
      }}
    >
      <label>
        Operator token
        <input
          type="password"
          autocomplete="off"
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          placeholder="read-only without one"
        />
      </label>
      <button type="submit">Use token</button>
    </form>
  );
}

export function Header() {
  const live = useLive();
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const health = live.snapshot?.health;
  const org = live.snapshot?.org;
  return (
    <header class="top">
      <div class="brand">
        <img src="/favicon.ico" alt="" width={24} height={24} />
        <span class="company">{org?.name ?? 'svc'}</span>
        {health ? <span class="muted">node {health.node}</span> : null}
        <span class={`link link-${live.link}`} role="status" aria-live="polite" data-link={live.link}>
          {linkText[live.link]}
        </span>
        {health ? <Badge value={health.status} title="health status" /> : null}
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
