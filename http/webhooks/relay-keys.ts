/**
 * The relay vendor's key set (JWKS): fetched from a configurable location, cached by `kid`, and fetched
 * again when a token names a `kid` the cache lacks — at most once per `minRefreshMs`, so unknown ids
 * cannot make the node hammer the vendor.
 */
import type { KeyObject } from 'node:crypto';
import { rsaKeyFromJwk } from './jws.js';

export interface RelayKeySet {
  /** The key for `kid`; null when the set (even refreshed) has none. Throws when the set is unreachable. */
  key(kid: string): Promise<KeyObject | null>;
}

export class KeySetUnavailable extends Error {
  override name = 'KeySetUnavailable';
}

export function relayKeySet(
  url: string,
  opts: { minRefreshMs?: number; timeoutMs?: number; fetch?: typeof fetch } = {},
): RelayKeySet {
  const minRefreshMs = opts.minRefreshMs ?? 30_000;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const get = opts.fetch ?? fetch;
  let keys = new Map<string, KeyObject>();
  let fetchedAt = -Infinity;
  let inFlight: Promise<void> | null = null;

  const refresh = (): Promise<void> =>
    (inFlight ??= (async () => {
      try {
        const res = await get(url, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) throw new KeySetUnavailable(`key set answered ${res.status}`);
        const body = await res.json();
        const list =
          typeof body === 'object' && body !== null && Array.isArray((body as { keys?: unknown }).keys)
            ? (body as { keys: unknown[] }).keys
            : [];
        const next = new Map<string, KeyObject>();
        for (const jwk of list) {
          if (typeof jwk !== 'object' || jwk === null) continue;
          const kid = (jwk as Record<string, unknown>)['kid'];
          const key = rsaKeyFromJwk(jwk as Record<string, unknown>);
          if (typeof kid === 'string' && key !== null) next.set(kid, key);
        }
        keys = next;
        fetchedAt = performance.now();
      } catch (error) {
        if (error instanceof KeySetUnavailable) throw error;
        throw new KeySetUnavailable('key set unreachable', { cause: error });
      } finally {
        inFlight = null;
      }
    })());

  return {
    async key(kid) {
      const known = keys.get(kid);
      if (known) return known;
      if (performance.now() - fetchedAt < minRefreshMs) return null;
      await refresh();
      return keys.get(kid) ?? null;
    },
  };
}
