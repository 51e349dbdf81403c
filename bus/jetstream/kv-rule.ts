/**
 * Log-order arbitration of KV writes (DESIGN.md, "Agreement comes from log order"). On nats-server 2.9
 * the expected-sequence check is not serialised through replication (issue #4320), so two updates of
 * one revision can both be stored. Every record says which revision it claims as parent, and every
 * reader applies this one rule to the key's records in stream order:
 *
 * - an unconditional write (no parent) is valid;
 * - a conditional write is valid only when its parent equals the current valid revision (0 when the key
 *   is absent, deleted or expired at the record's time); the first claimant of a parent therefore wins
 *   and later claimants of the same parent are losers, ignored by `get`, `history`, `keys` and `watch`.
 *
 * Pure functions only: no I/O, so the rule is tested on its own.
 */

export interface KvRecord {
  readonly key: string;
  readonly seq: number;
  /** Server time of the record, ms. */
  readonly time: number;
  readonly value: Uint8Array;
  readonly operation: 'put' | 'delete';
  /** Revision claimed as parent; null for an unconditional write. */
  readonly parent: number | null;
}

export interface KeyState {
  /** Last sequence of the key taken into account, valid or not; 0 when none. */
  readonly last: number;
  /** The current valid record when it is a put; null when the key is absent or deleted. */
  readonly current: KvRecord | null;
}

export interface Verdict {
  readonly valid: boolean;
  /** The valid revision the record was judged against (the winner's, for a loser). */
  readonly before: number;
}

export interface Walk {
  readonly state: KeyState;
  readonly verdicts: ReadonlyMap<number, Verdict>;
}

export const emptyState: KeyState = Object.freeze({ last: 0, current: null });

/** The valid revision at `at` (ms): the current put unless it has expired by then. */
export function revisionAt(state: KeyState, ttlMs: number | undefined, at: number): number {
  const current = state.current;
  if (!current) return 0;
  if (ttlMs && current.time + ttlMs <= at) return 0;
  return current.seq;
}

/** The current put as seen at `now`, or null when absent, deleted or expired. */
export function live(state: KeyState, ttlMs: number | undefined, now: number): KvRecord | null {
  return revisionAt(state, ttlMs, now) === 0 ? null : state.current;
}

/** Applies one record to a known state. */
export function apply(
  state: KeyState,
  record: KvRecord,
  ttlMs: number | undefined,
): { state: KeyState } & Verdict {
  const before = revisionAt(state, ttlMs, record.time);
  const valid = record.parent === null || record.parent === before;
  const current = valid ? (record.operation === 'put' ? record : null) : state.current;
  return { state: { last: record.seq, current }, valid, before };
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
 * limit, TTL), so the state before the window is unknown. Until it is known, only two records can be
 * judged: an unconditional write, and the anchor — the first record in the window claiming the newest
 * parent that is not in the window (0 counts as such). Writers only claim valid revisions, so the newest
 * trimmed revision anyone claims is the valid one, and its first claimant in the window is its winner.
 */
export function judge(records: readonly KvRecord[], ttlMs: number | undefined): Walk {
  const inWindow = new Set(records.map((r) => r.seq));
  let anchor = -1;
  let anchorParent = -1;
  records.forEach((record, i) => {
    if (record.parent === null || inWindow.has(record.parent)) return;
    if (record.parent > anchorParent) {
      anchorParent = record.parent;
      anchor = i;
    }
  });
  const verdicts = new Map<number, Verdict>();
  let state: KeyState = emptyState;
  let known = false;
  records.forEach((record, i) => {
    if (known) {
      const step = apply(state, record, ttlMs);
      verdicts.set(record.seq, { valid: step.valid, before: step.before });
      state = step.state;
    } else if (record.parent === null || i === anchor) {
      verdicts.set(record.seq, { valid: true, before: record.parent ?? 0 });
      state = { last: record.seq, current: record.operation === 'put' ? record : null };
      known = true;
    } else {
      verdicts.set(record.seq, { valid: false, before: 0 });
      state = { last: record.seq, current: null };
    }
  });
  return { state, verdicts };
}
