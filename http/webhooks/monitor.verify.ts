/** monitor: `X-Service-Token` compared in constant time; a token under 26 characters counts as unset. */
import { MONITOR_TOKEN_MIN_LENGTH } from '../../schema/index.js';
import { verifyServiceToken, WikiHeaders } from './wiki.verify.js';
import type { Verdict } from './verify.js';

export const MonitorHeaders = { token: WikiHeaders.token } as const;

/** True when the configured token may be used at all (else the route answers 503). */
export function monitorTokenUsable(token: string | null): token is string {
  return token !== null && token.length >= MONITOR_TOKEN_MIN_LENGTH;
}

export function verifyMonitor(expected: string, headers: Readonly<Record<string, string>>): Verdict {
  // No query fallback here: the spec names only the header for monitor.
  return verifyServiceToken(expected, headers[MonitorHeaders.token], null);
}
