/**
 * The keys of one LLM provider entry and their health (spec "LLM provider entry", `/credential-pool`).
 * A call takes the least-loaded key that is not cooling down; a 429 cools the key for its
 * `Retry-After`, a 401/403 for a backoff that doubles with each refusal in a row; a success clears it.
 * Keys are named by reference everywhere; a value exists only inside a lease.
 */
import { createHash } from 'node:crypto';
import {
  substituteRefs,
  type CredentialPoolEntry,
  type CredentialPoolKey,
  type Resolver,
} from '../../../schema/index.js';

/** `NAME` when `text` is exactly one `${NAME}` reference; null otherwise (a literal or a mixed string). */
export function isWholeRefName(text: string): string | null {
  return /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text.trim())?.[1] ?? null;
}

export const CoolReason = {
  RateLimited: 'rate_limited',
  AuthRefused: 'auth_refused',
  /** Not a cooldown: the reference resolves to nothing, so the key is skipped. */
  Unresolved: 'unresolved',
} as const;

/** Environment fallbacks read when `api_keys` is empty. `openai-compatible` has none (ops/providers.md). */
export const envFallbacks: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

export interface PoolTiming {
  /** Cooldown after a 429 without `Retry-After`. */
  readonly rateLimitDefaultMs: number;
  /** First cooldown after a 401/403; doubles per refusal in a row. */
  readonly authBackoffBaseMs: number;
  /** Ceiling of every cooldown, `Retry-After` included. */
  readonly maxCooldownMs: number;
}

export const defaultTiming: PoolTiming = {
  rateLimitDefaultMs: 30_000,
  authBackoffBaseMs: 60_000,
  maxCooldownMs: 3_600_000,
};

export interface PoolOptions {
  readonly provider: string;
  readonly type: string;
  readonly model: string;
  readonly apiKeys?: readonly string[] | undefined;
  /** Answers `${VAR}` names (secret store, then environment). */
  readonly resolve: Resolver;
  /** Wall clock in ms. */
  readonly now?: () => number;
  readonly timing?: Partial<PoolTiming>;
}

/** One checked-out key. Exactly one outcome method should be called when the call ends. */
export interface KeyLease {
  readonly ref: string;
  /** Null for a keyless `openai-compatible` entry: the request carries no credential. */
  readonly value: string | null;
  succeeded(): void;
  rateLimited(retryAfterMs: number | null): void;
  authRefused(): void;
  /** Any other ending: the key's health is unchanged. */
  released(): void;
}

export type Acquired =
  | { readonly ok: true; readonly lease: KeyLease }
  | { readonly ok: false; readonly reason: 'keys_cooling' }
  /** `unresolved`: each key's `${VAR}` name (or `api_keys[i]`) that resolves to nothing, for the error. */
  | { readonly ok: false; readonly reason: 'no_key'; readonly unresolved: readonly string[] };

interface KeyState {
  readonly ref: string;
  readonly index: number;
  /** The `api_keys` entry as written (a reference or a literal); null when keyless. */
  readonly text: string | null;
  coolingUntil: number | null;
  reason: string | null;
  inFlight: number;
  failures: number;
  authStreak: number;
  lastUsed: number;
  /** The take (`uses`) after which the latest refusal came: leases taken before it cannot clear it. */
  refusedAfter: number;
  /** Digest of the value a 401/403 refused (never the value): a rotated value is not under that refusal. */
  refusedDigest: string | null;
}

const digestOf = (value: string): string => createHash('sha256').update(value).digest('base64url');

export class CredentialPool {
  readonly provider: string;
  readonly type: string;
  readonly model: string;
  private readonly keys: KeyState[];
  private readonly resolve: Resolver;
  private readonly now: () => number;
  private readonly timing: PoolTiming;
  private uses = 0;

  constructor(opts: PoolOptions) {
    this.provider = opts.provider;
    this.type = opts.type;
    this.model = opts.model;
    this.resolve = opts.resolve;
    this.now = opts.now ?? Date.now;
    this.timing = { ...defaultTiming, ...opts.timing };
    const state = (ref: string, index: number, text: string | null): KeyState => ({
      ref,
      index,
      text,
      coolingUntil: null,
      reason: null,
      inFlight: 0,
      failures: 0,
      authStreak: 0,
      lastUsed: 0,
      refusedAfter: 0,
      refusedDigest: null,
    });
    const written = opts.apiKeys ?? [];
    const fallback = envFallbacks[opts.type];
    if (written.length > 0) {
      this.keys = written.map((text, i) => state(isWholeRefName(text) ?? `api_keys[${i}]`, i, text));
    } else if (fallback) {
      this.keys = [state(fallback, 0, `\${${fallback}}`)];
    } else {
      this.keys = [state('(none)', 0, null)];
    }
  }

  /** How many keys the entry has (a keyless entry counts one). */
  get size(): number {
    return this.keys.length;
  }

  /** Takes over the cooldowns of keys written identically in `previous` (rate limits follow the key). */
  carryFrom(previous: CredentialPool): void {
    for (const key of this.keys) {
      const old = previous.keys.find((k) => k.text === key.text);
      if (!old) continue;
      key.coolingUntil = old.coolingUntil;
      key.reason = old.reason;
      key.failures = old.failures;
      key.authStreak = old.authStreak;
      key.refusedDigest = old.refusedDigest;
    }
  }

  /** The least-loaded usable key (ties: the one used longest ago), or why there is none. */
  acquire(): Acquired {
    const now = this.now();
    let best: { key: KeyState; value: string | null } | null = null;
    let resolvable = 0;
    for (const key of this.keys) {
      const value = this.valueOf(key);
      if (value === '') continue;
      this.forgetRotated(key, value);
      resolvable += 1;
      if (this.cooling(key, now)) continue;
      if (
        !best ||
        key.inFlight < best.key.inFlight ||
        (key.inFlight === best.key.inFlight && key.lastUsed < best.key.lastUsed)
      ) {
        best = { key, value };
      }
    }
    if (!best) {
      return resolvable === 0
        ? { ok: false, reason: 'no_key', unresolved: this.keys.map((key) => key.ref) }
        : { ok: false, reason: 'keys_cooling' };
    }
    const { key, value } = best;
    this.uses += 1;
    key.lastUsed = this.uses;
    key.inFlight += 1;
    return { ok: true, lease: this.lease(key, value) };
  }

  /**
   * When every key that resolves is cooling: the instant (ms) the first of them is usable again.
   * Null when a key is usable now or none resolves (waiting would change nothing).
   */
  usableAgainAt(): number | null {
    const now = this.now();
    let earliest: number | null = null;
    for (const key of this.keys) {
      const value = this.valueOf(key);
      if (value === '') continue;
      this.forgetRotated(key, value);
      if (!this.cooling(key, now)) return null;
      const until = key.coolingUntil as number;
      if (earliest === null || until < earliest) earliest = until;
    }
    return earliest;
  }

  /** Calls in flight on any of its keys. */
  get inFlight(): number {
    return this.keys.reduce((sum, key) => sum + key.inFlight, 0);
  }

  /**
   * The pool as `/credential-pool` reads it; `superseded`: pools this one replaced (an apply redefined the
   * entry) whose calls still run, counted in flight on the key written identically here.
   */
  snapshot(superseded: readonly CredentialPool[] = []): CredentialPoolEntry {
    const now = this.now();
    return {
      provider: this.provider,
      type: this.type,
      model: this.model,
      keys: this.keys.map((key): CredentialPoolKey => {
        const value = this.valueOf(key);
        this.forgetRotated(key, value);
        const cooling = this.cooling(key, now);
        const unresolved = value === '';
        return {
          ref: key.ref,
          index: key.index,
          cooling_until: cooling ? new Date(key.coolingUntil as number).toISOString() : null,
          reason: cooling ? key.reason : unresolved ? CoolReason.Unresolved : null,
          in_flight: superseded.reduce(
            (sum, pool) => sum + (pool.keys.find((k) => k.text === key.text)?.inFlight ?? 0),
            key.inFlight,
          ),
          failures: key.failures,
        };
      }),
    };
  }

  private valueOf(key: KeyState): string | null {
    return key.text === null ? null : substituteRefs(key.text, this.resolve).trim();
  }

  /**
   * An auth refusal is of the value refused: once the reference resolves to another value (the operator
   * rotated the secret), the key is a new credential with no refusals. A rate limit stays: it is usually
   * the account's, which a new key of the same account shares.
   */
  private forgetRotated(key: KeyState, value: string | null): void {
    if (key.refusedDigest === null || value === null || value === '') return;
    if (digestOf(value) === key.refusedDigest) return;
    key.refusedDigest = null;
    key.authStreak = 0;
    if (key.reason !== CoolReason.AuthRefused) return;
    key.coolingUntil = null;
    key.reason = null;
    key.failures = 0;
  }

  private cooling(key: KeyState, now: number): boolean {
    return key.coolingUntil !== null && key.coolingUntil > now;
  }

  private lease(key: KeyState, value: string | null): KeyLease {
    let done = false;
    const end = (effect: () => void): void => {
      if (done) return;
      done = true;
      key.inFlight = Math.max(0, key.inFlight - 1);
      effect();
    };
    // Which take this lease is: a call started before a refusal and succeeding after it says nothing of the
    // key now (a rate limit hit while it ran), so it does not lift the cooldown.
    const taken = this.uses;
    const cool = (ms: number, reason: string): void => {
      key.refusedAfter = this.uses;
      key.coolingUntil = this.now() + Math.min(Math.max(0, ms), this.timing.maxCooldownMs);
      key.reason = reason;
      key.failures += 1;
    };
    return {
      ref: key.ref,
      value,
      succeeded: () =>
        end(() => {
          if (taken <= key.refusedAfter) return;
          key.coolingUntil = null;
          key.reason = null;
          key.failures = 0;
          key.authStreak = 0;
          key.refusedDigest = null;
        }),
      rateLimited: (retryAfterMs) =>
        end(() => cool(retryAfterMs ?? this.timing.rateLimitDefaultMs, CoolReason.RateLimited)),
      authRefused: () =>
        end(() => {
          // A refusal of a value already rotated away says nothing of the key now.
          if (value !== null && value !== this.valueOf(key)) return;
          cool(this.timing.authBackoffBaseMs * 2 ** key.authStreak, CoolReason.AuthRefused);
          key.authStreak = Math.min(key.authStreak + 1, 30);
          if (value !== null) key.refusedDigest = digestOf(value);
        }),
      released: () => end(() => undefined),
    };
  }
}
