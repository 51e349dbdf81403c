/**
 * The relay vendor's key set (JWKS): fetched from a configurable location and cached by `kid`. A token
 * that names an unknown `kid`, or whose signature fails under the cached key, may mean the vendor rotated
 * its keys (even under the same `kid`), so the verifier asks for the set again — but the set is fetched at
 * most once per `minRefreshMs` (successful or not), so a flood of bad tokens cannot make the node hammer
 * the vendor.
 */
import type { KeyObject } from 'node:crypto';
import { rsaKeyFromJwk } from './jws.js';

export interface RelayKeySet {
  /**
   * The cached key for `kid`; null when the set has none. Fetches the set first when it was never read.
   * Throws KeySetUnavailable when that fetch fails.
   */
  key(kid: string): Promise<KeyObject | null>;
  /**
   * Fetches the set again unless a fetch was attempted within the rate window (a fetch already in flight
   * is joined). Resolves true when a fresh set was read, false when the window held it back. Throws
   * KeySetUnavailable when the fetch fails, or when the last attempt in the window failed.
   */
  refresh(): Promise<boolean>;
}

export class KeySetUnavailable extends Error {
  override name = 'KeySetUnavailable';
}

/** A fetched JWKS document's RSA keys by `kid`; entries that are not RSA public keys are skipped. */
function keysOf(body: unknown): Map<string, KeyObject> {
  const list =
    typeof body === 'object' && body !== null && Array.isArray((body as { keys?: unknown }).keys)
      ? (body as { keys: unknown[] }).keys
      : [];
  const keys = new Map<string, KeyObject>();
  for (const jwk of list) {
    if (typeof jwk !== 'object' || jwk === null) continue;
    const kid = (jwk as Record<string, unknown>)['kid'];
    const key = rsaKeyFromJwk(jwk as Record<string, unknown>);
    if (typeof kid === 'string' && key !== null) keys.set(kid, key);
  }
  return keys;
}

export function relayKeySet(
  url: string,
  opts: {
    /** The rate window: at most one fetch per this many ms. Default 30 s. */
    minRefreshMs?: number;
    timeoutMs?: number;
    fetch?: typeof fetch;
    /** A monotonic clock in ms (tests drive it); default `performance.now`. */
    now?: () => number;
  } = {},
): RelayKeySet {
  const minRefreshMs = opts.minRefreshMs ?? 30_000;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const get = opts.fetch ?? fetch;
  const now = opts.now ?? (() => performance.now());
  let keys: Map<string, KeyObject> | null = null;
  let attemptedAt = -Infinity;
  let lastFailure: KeySetUnavailable | null = null;
  let inFlight: Promise<void> | null = null;

  const fetchSet = async (): Promise<void> => {
    try {
      const res = await get(url, { signal: AbortSignal.timeout(timeoutMs) });
      if (!res.ok) throw new KeySetUnavailable(`key set answered ${res.status}`);
      keys = keysOf(await res.json());
      lastFailure = null;
    } catch (error) {
      lastFailure =
        error instanceof KeySetUnavailable
          ? error
          : new KeySetUnavailable('key set unreachable', { cause: error });
      throw lastFailure;
    } finally {
      inFlight = null;
    }
  };

  const refresh = async (): Promise<boolean> => {
    if (inFlight === null) {
      if (now() - attemptedAt < minRefreshMs) {
        if (lastFailure !== null) throw lastFailure;
        return false;
      }
      attemptedAt = now();
      inFlight = fetchSet();
    }
    await inFlight;
    return true;
  };

  return {
    async key(kid) {
      if (keys === null) await refresh();
      if (keys === null) throw lastFailure ?? new KeySetUnavailable('key set not read yet');
      return keys.get(kid) ?? null;
    },
    refresh,
  };
}
