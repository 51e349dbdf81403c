/**
 * Log-order arbitration of KV writes (DESIGN.md, "Agreement comes from log order"). On nats-server 2.9
 * the expected-sequence check is not serialised through replication (issue #4320), so two updates of
 * one revision can both be stored. Every conditional record names the valid record it builds on (its
 * parent), and every reader applies this one rule to the key's records in stream order:
 *
 * - an unconditional write (no parent) is valid;
 * - a conditional write is valid only when its parent is the current valid record: the live value's
 *   revision for an update or a conditional delete; for a create, the tombstone that deleted the key,
 *   or 0 when the key never existed or its last record expired. So the first claimant of a parent wins;
 *   later claimants of the same parent are losers, ignored by `get`, `history`, `keys` and `watch`.
 *
 * Naming the tombstone (rather than 0) in a create keeps parents unique: the valid records form one
 * chain, which is what lets a reader judge a window whose older records were trimmed (see `judge`).
 * Pure functions only: no I/O, so the rule is tested on its own.
 */

export interface KvRecord {
  readonly key: string;
  readonly seq: number;
  /** Server time of the record, ms. */
  readonly time: number;
  readonly value: Uint8Array;
  readonly operation: 'put' | 'delete';
  /** The valid record this one builds on (0: none); null for an unconditional write. */
  readonly parent: number | null;
}

export interface KeyState {
  /** Last sequence of the key taken into account, valid or not; 0 when none. */
  readonly last: number;
  /** The last valid record, put or delete; 0 when none. */
  readonly valid: number;
  /** Its server time, ms (Infinity when unknown: it was trimmed). */
  readonly validTime: number;
  /** The last valid record when it is a put; null when the key is absent or deleted. */
  readonly current: KvRecord | null;
}

export interface Verdict {
  readonly valid: boolean;
  /** The parent a claim needed at that point (the winner's revision, for a loser of an update). */
  readonly before: number;
}

export interface Walk {
  readonly state: KeyState;
  readonly verdicts: ReadonlyMap<number, Verdict>;
}

export const emptyState: KeyState = Object.freeze({ last: 0, valid: 0, validTime: 0, current: null });

/** The parent a conditional write made at `at` (ms) must name: 0 once the last valid record expired. */
export function parentAt(state: KeyState, ttlMs: number | undefined, at: number): number {
  if (state.valid === 0) return 0;
  if (ttlMs && state.validTime + ttlMs <= at) return 0;
  return state.valid;
}

/** The live value at `now`, or null when absent, deleted or expired. */
export function live(state: KeyState, ttlMs: number | undefined, now: number): KvRecord | null {
  const current = state.current;
  if (!current || parentAt(state, ttlMs, now) !== current.seq) return null;
  return current;
}

/** The live value's revision at `at`, 0 when there is none (what update/create compare against). */
export function revisionAt(state: KeyState, ttlMs: number | undefined, at: number): number {
  return live(state, ttlMs, at)?.seq ?? 0;
}

/** The state an unconditional record leaves: it alone decides, whatever came before it. */
export function settledBy(record: KvRecord): KeyState {
  return {
    last: record.seq,
    valid: record.seq,
    validTime: record.time,
    current: record.operation === 'put' ? record : null,
  };
}

/** Applies one record to a known state. */
export function apply(
  state: KeyState,
  record: KvRecord,
  ttlMs: number | undefined,
): { state: KeyState } & Verdict {
  const before = parentAt(state, ttlMs, record.time);
  const valid = record.parent === null || record.parent === before;
  const next: KeyState = valid
    ? {
        last: record.seq,
        valid: record.seq,
        validTime: record.time,
        current: record.operation === 'put' ? record : null,
      }
    : { ...state, last: Math.max(state.last, record.seq) };
  return { state: next, valid, before };
}

/**
 * Continues a known state over the key's next records. Returns null when records may have been trimmed
 * in between (a claimed parent newer than the state but never seen, or a full history's worth of new
 * records): the caller then judges the retained window from scratch.
 */
export function continueWalk(
  base: KeyState,
  records: readonly KvRecord[],
  ttlMs: number | undefined,
  history: number,
): Walk | null {
  if (records.length >= history) return null;
  const seen = new Set<number>();
  const verdicts = new Map<number, Verdict>();
  let state = base;
  for (const record of records) {
    if (record.parent !== null && record.parent > base.last && !seen.has(record.parent)) return null;
    const step = apply(state, record, ttlMs);
    verdicts.set(record.seq, { valid: step.valid, before: step.before });
    state = step.state;
    seen.add(record.seq);
  }
  return { state, verdicts };
}

/**
 * Judges the retained records of a key from scratch. Older records may have been trimmed (history
 * limit, TTL), so the state before the window is not in it; it is recovered from the claims. Writers
 * only build on valid records and parents are unique, so the newest trimmed parent anyone claims is the
 * last valid record before the window, and its first claimant in the window is its winner. The walk
 * starts from that record. (With a TTL, a claim racing the expiry of a record at the trimmed edge can
 * still be misjudged by a reader that has never seen the key; 64 records of history make this rare.)
 */
export function judge(records: readonly KvRecord[], ttlMs: number | undefined): Walk {
  const inWindow = new Set(records.map((r) => r.seq));
  let newest = 0;
  for (const record of records) {
    if (record.parent !== null && !inWindow.has(record.parent)) newest = Math.max(newest, record.parent);
  }
  // A trimmed last valid record: its revision is known, its time (for expiry) and value are not.
  let state: KeyState =
    newest === 0 ? emptyState : { last: 0, valid: newest, validTime: Infinity, current: null };
  const verdicts = new Map<number, Verdict>();
  for (const record of records) {
    const step = apply(state, record, ttlMs);
    verdicts.set(record.seq, { valid: step.valid, before: step.before });
    state = step.state;
  }
  return { state, verdicts };
}
