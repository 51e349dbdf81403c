/** The operator token: entered once, kept for this tab only (sessionStorage), never in the URL bar. */
const key = 'svc.token';

export function readToken(): string | null {
  try {
    const value = sessionStorage.getItem(key);
    return value && value.trim() !== '' ? value : null;
  } catch {
    return null;
  }
}

export function writeToken(token: string | null): void {
  try {
    if (token === null || token.trim() === '') sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, token.trim());
  } catch {
    // Storage refused (private mode): the token lives until the page closes.
  }
}

/** `Authorization` for a fetch, when a token is held. */
export function authHeaders(token: string | null): Record<string, string> {
  return token === null ? {} : { Authorization: `Bearer ${token}` };
}
