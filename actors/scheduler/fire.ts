/**
 * Executes one decided firing: 1. claim (schedule, fire time, target) with a KV `create`, so the
 * firing happens once even when two nodes both believe they hold the duty — checked against the
 * holder's fence right before; the claim holds the wake and the row it is about to send; 2. wake the
 * target on its inbox (never a human seat: runners are agent handles only); 3. record the ledger row as
 * a `schedule_fired` event; 4. mark the claim done.
 *
 * A claim found not done (its claimant died between 1 and 4, or is still at it) is completed by the
 * holder that plans the firing again, or by the next one to take the duty (`completeUnfinished`): it
 * sends the claim's own wake and row under the same ids, so the inbox stores the wake once whoever sends
 * first, and the row is stored once however late either comes (ledger-row.ts; ops/schedules.md "Claims").
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { KvConflictError, Subjects, type Bus, type Kv, newEvent } from '../../bus/index.js';
import {
  CATCHUP_MAX_MS,
  ClaimState,
  EventCategory,
  FiringClaim,
  InboxKind,
  ReservedActor,
  type LedgerRow,
  SCHEDULE_FIRED,
  scheduledDeadline,
  ScheduleOutcome,
  uuidv5,
  type InboxMessage,
  type ScheduleWake,
} from '../../schema/index.js';
import { LeaseFencedError } from '../lease/index.js';
import { findRow, ledgerMark, storeRowOnce, type RowSearch } from './ledger-row.js';
import type { Firing } from './scheduler.plan.js';

/** Namespace of inbox message ids derived from a firing's identity (so a re-send de-duplicates). */
const WAKE_NAMESPACE = 'a5a4c0f2-58c1-5d0e-9a43-5f0c2b6e1d7a';
/** Namespace of ledger row event ids derived from a firing's identity (two senders store one row). */
const ROW_NAMESPACE = '3f0d8c5b-6a1e-5b7c-9d2f-8e4a1c6b0f53';

/**
 * How long after its claim an unfinished firing is still completed: the widest catchup window. Later,
 * a wake the claimant may have stored could leave the inbox's duplicate window (INBOX_DEDUP_MS, an
 * hour wider), and a catchup would no longer fire it anyway.
 */
const COMPLETE_WITHIN_MS = CATCHUP_MAX_MS;

export interface FireDeps {
  readonly bus: Bus;
  /** Claims bucket: one key per (schedule, fire time, target). */
  readonly claims: Kv;
  readonly nodeId: string;
  readonly now: () => Date;
  readonly logger: Logger;
  /** The duty epoch this firing is made under (kept in the claim). */
  readonly epoch?: number;
  /** Whether the duty is still provably held here (the fence); false refuses before the claim. */
  readonly mayClaim?: () => boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The identity a claim and a wake id are derived from. */
export function firingIdentity(f: Firing): string {
  const s = f.schedule;
  return JSON.stringify([s.scope_type, s.scope_id, s.name, f.scheduled_at, f.target_handle]);
}

/** KV key of a firing's claim (hashed: unit and schedule names may hold any character). */
export function claimKey(f: Firing): string {
  return `fire.${createHash('sha256').update(firingIdentity(f)).digest('hex').slice(0, 40)}`;
}

const traceOf = (identity: string): string =>
  createHash('sha256').update(identity).digest('hex').slice(0, 32);

/** The claim this node writes for `firing` at `firedAt`: what it is about to send. */
function intendedClaim(deps: FireDeps, firing: Firing, firedAt: Date): FiringClaim {
  const s = firing.schedule;
  const identity = firingIdentity(firing);
  let wake: InboxMessage | null = null;
  if (firing.outcome === ScheduleOutcome.Fired) {
    const deadline = scheduledDeadline(firedAt, s.timeout_seconds);
    const payload: ScheduleWake = {
      scope_type: s.scope_type,
      scope_id: s.scope_id,
      schedule_name: s.name,
      task: s.task,
      target: s.target,
      scheduled_at: firing.scheduled_at,
      fired_at: firedAt.toISOString(),
      timeout_seconds: s.timeout_seconds,
      deadline: deadline?.toISOString() ?? null,
    };
    wake = {
      id: uuidv5(WAKE_NAMESPACE, identity),
      kind: InboxKind.Schedule,
      source: `${deps.nodeId}/scheduler`,
      received_at: firedAt.toISOString(),
      trace_id: traceOf(identity),
      summary: `schedule ${s.name}: ${s.task}`.slice(0, 200),
      payload,
    };
  }
  return {
    v: 2,
    state: ClaimState.Claimed,
    node: deps.nodeId,
    identity,
    epoch: deps.epoch ?? null,
    claimed_at: firedAt.toISOString(),
    wake,
    row: {
      scope_type: s.scope_type,
      scope_id: s.scope_id,
      schedule_name: s.name,
      target_handle: firing.target_handle,
      scheduled_at: firing.scheduled_at,
      fired_at: firedAt.toISOString(),
      outcome: firing.outcome,
    },
  };
}

// The log line says what happened: a skipped catchup or a failed delivery did not fire.
const firingMessage: Record<ScheduleOutcome, string> = {
  [ScheduleOutcome.Fired]: 'schedule fired',
  [ScheduleOutcome.SkippedCatchup]: 'missed firing recorded, not caught up',
  [ScheduleOutcome.Failed]: 'schedule firing not delivered',
};

const encodeClaim = (claim: FiringClaim): Uint8Array => encoder.encode(JSON.stringify(claim));

/** Runs one firing; resolves with its ledger row, or null when it was (or is being) fired elsewhere. */
export async function runFiring(deps: FireDeps, firing: Firing): Promise<LedgerRow | null> {
  const log = deps.logger.child({
    schedule: firing.schedule.name,
    scope: `${firing.schedule.scope_type}:${firing.schedule.scope_id}`,
    target: firing.target_handle,
    scheduled_at: firing.scheduled_at,
  });
  const key = claimKey(firing);
  const claim = intendedClaim(deps, firing, deps.now());
  // Before the claim: no row of this firing can be stored earlier, so none is looked for.
  const mark = await ledgerMark(deps.bus);
  // 1. claim, fenced: the check and the send are one synchronous step.
  if (deps.mayClaim?.() === false) throw new LeaseFencedError('duty.scheduler', deps.epoch ?? null);
  let revision: number;
  try {
    revision = await deps.claims.create(key, encodeClaim(claim));
  } catch (error) {
    if (error instanceof KvConflictError) return completeClaimed(deps, key, log);
    throw error;
  }
  const sent = await send(deps, claim, mark, log);
  await markDone(deps.claims, key, claim, sent.row, revision, log);
  if (!sent.stored) {
    // Paused past its lease, this node came back after a peer completed the firing.
    log.warn({ outcome: sent.row.outcome }, 'firing completed by another node while this one was paused');
    return null;
  }
  log.info({ outcome: sent.row.outcome }, firingMessage[sent.row.outcome]);
  return sent.row;
}

/**
 * The firing was claimed already: nothing to do when the claim is done (or was written by an earlier
 * release, which completed before it returned); otherwise its claimant may have died before sending,
 * and this holder — past the same fence as a claim — sends what the claim says.
 */
async function completeClaimed(deps: FireDeps, key: string, log: Logger): Promise<LedgerRow | null> {
  const entry = await deps.claims.get(key);
  const claim = entry === null ? null : unfinished(entry.value);
  if (entry === null || claim === null) {
    log.debug('firing already claimed elsewhere');
    return null;
  }
  return completeClaim(deps, key, claim, entry.revision, log);
}

/** The claim `value` holds when it is a claim of this release still `claimed`; else null. */
function unfinished(value: Uint8Array): FiringClaim | null {
  const parsed = FiringClaim.safeParse(parseJson(value));
  return parsed.success && parsed.data.state === ClaimState.Claimed ? parsed.data : null;
}

/** Sends an unfinished claim's wake and row (unless the claimant recorded its row) and marks it done. */
async function completeClaim(
  deps: FireDeps,
  key: string,
  claim: FiringClaim,
  revision: number,
  log: Logger,
): Promise<LedgerRow | null> {
  const age = deps.now().getTime() - new Date(claim.claimed_at).getTime();
  if (age >= COMPLETE_WITHIN_MS) {
    log.warn(
      { claimed_by: claim.node, claimed_at: claim.claimed_at },
      'firing claimed and never completed is too old to complete: its wake may have been stored, and past the inbox duplicate window a second would be too',
    );
    return null;
  }
  if (deps.mayClaim?.() === false) throw new LeaseFencedError('duty.scheduler', deps.epoch ?? null);
  // The claimant stored its row (so its wake before it) and died marking the claim done: nothing to send.
  const since = new Date(new Date(claim.claimed_at).getTime() - ROW_SKEW_MS);
  const search = await findRow(deps.bus, uuidv5(ROW_NAMESPACE, claim.identity), { since });
  if (search.row !== null) {
    log.info({ claimed_by: claim.node }, 'marking done a firing its claimant sent');
    await markDone(deps.claims, key, claim, search.row, revision, log);
    return null;
  }
  log.warn(
    { claimed_by: claim.node, claimed_at: claim.claimed_at, epoch: claim.epoch },
    'completing a firing its claimant did not finish',
  );
  const sent = await send(deps, claim, search, log);
  await markDone(deps.claims, key, claim, sent.row, revision, log);
  return sent.stored ? sent.row : null;
}

/** How far before its claim a firing's row is looked for: the claimant's clock may run ahead of the store's. */
const ROW_SKEW_MS = 10 * 60_000;

/**
 * At a takeover: completes every claim still unfinished — a claimant that died, however many firings
 * ago (the catchup plans only each schedule's latest) — oldest first, up to COMPLETE_WITHIN_MS old.
 * Reads the whole bucket (24 h of claims) once per takeover.
 */
export async function completeUnfinished(deps: FireDeps): Promise<LedgerRow[]> {
  const open: { key: string; claim: FiringClaim; revision: number }[] = [];
  let initial = true;
  const watch = await deps.claims.watch((entry) => {
    const claim = initial && entry.operation === 'put' ? unfinished(entry.value) : null;
    if (claim !== null) open.push({ key: entry.key, claim, revision: entry.revision });
  });
  initial = false;
  await watch.stop();
  open.sort((x, y) => Date.parse(x.claim.claimed_at) - Date.parse(y.claim.claimed_at));
  const rows: LedgerRow[] = [];
  for (const { key, claim, revision } of open) {
    const log = deps.logger.child({
      schedule: claim.row.schedule_name,
      target: claim.row.target_handle,
      scheduled_at: claim.row.scheduled_at,
    });
    const row = await completeClaim(deps, key, claim, revision, log);
    if (row !== null) rows.push(row);
  }
  return rows;
}

const parseJson = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return null;
  }
};

/**
 * 2. and 3.: the claim's wake and row, under ids derived from the firing alone; the row only if none came
 * on the ledger after `search` (else the row stored, `stored: false`).
 */
async function send(
  deps: FireDeps,
  claim: FiringClaim,
  search: RowSearch,
  log: Logger,
): Promise<{ readonly stored: boolean; readonly row: LedgerRow }> {
  let outcome: LedgerRow['outcome'] = claim.row.outcome;
  if (claim.wake !== null) {
    try {
      await deps.bus.publish(
        Subjects.agentInbox(claim.row.target_handle),
        encoder.encode(JSON.stringify(claim.wake)),
        { msgId: claim.wake.id },
      );
    } catch (error) {
      outcome = ScheduleOutcome.Failed;
      log.error({ err: error }, 'schedule wake could not be delivered');
    }
  }
  const row: LedgerRow = { ...claim.row, outcome };
  const record = newEvent({
    id: uuidv5(ROW_NAMESPACE, claim.identity),
    type: SCHEDULE_FIRED,
    category: EventCategory.System,
    source: `${deps.nodeId}/scheduler`,
    summary: `schedule ${row.schedule_name} ${outcome} for ${row.target_handle} (scheduled ${row.scheduled_at})`,
    actor: ReservedActor.Scheduler,
    agent_id: row.target_handle,
    payload: row,
    failed: outcome === ScheduleOutcome.Failed,
    trace: { trace_id: traceOf(claim.identity), parent_span_id: null },
    now: new Date(row.fired_at),
  });
  return storeRowOnce(deps.bus, record, search);
}

/** 4.: against the revision read, so of a claimant and a completer only the first marks it. */
async function markDone(
  claims: Kv,
  key: string,
  claim: FiringClaim,
  row: LedgerRow,
  revision: number,
  log: Logger,
): Promise<void> {
  const done: FiringClaim = { ...claim, state: ClaimState.Done, row };
  try {
    await claims.update(key, encodeClaim(done), revision);
  } catch (error) {
    // Marked by the other sender meanwhile; or not marked at all: a later holder sends the same ids again.
    if (!(error instanceof KvConflictError))
      log.warn({ err: error }, 'firing claim could not be marked done');
  }
}
