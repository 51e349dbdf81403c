/**
 * Executes one decided firing: 1. claim (schedule, fire time, target) with a KV `create`, so the
 * firing happens once even when two nodes both believe they hold the duty — checked against the
 * holder's fence right before (a claim won is then this node's to complete: nobody else can send
 * the firing, so a pause after it delays the wake, never doubles or drops it); 2. wake the target on
 * its inbox (never a human seat: runners are agent handles only); 3. record the ledger row as a
 * `schedule_fired` event.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { KvConflictError, Subjects, type Bus, type Kv, newEvent } from '../../bus/index.js';
import {
  EventCategory,
  InboxKind,
  SCHEDULE_FIRED,
  scheduledDeadline,
  ScheduleOutcome,
  uuidv5,
  type InboxMessage,
  type LedgerRow,
  type ScheduleWake,
} from '../../schema/index.js';
import { LeaseFencedError } from '../lease/index.js';
import type { Firing } from './scheduler.plan.js';

/** Namespace of inbox message ids derived from a firing's identity (so a re-send de-duplicates). */
const WAKE_NAMESPACE = 'a5a4c0f2-58c1-5d0e-9a43-5f0c2b6e1d7a';

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

/** The identity a claim and a wake id are derived from. */
export function firingIdentity(f: Firing): string {
  const s = f.schedule;
  return JSON.stringify([s.scope_type, s.scope_id, s.name, f.scheduled_at, f.target_handle]);
}

/** KV key of a firing's claim (hashed: unit and schedule names may hold any character). */
export function claimKey(f: Firing): string {
  return `fire.${createHash('sha256').update(firingIdentity(f)).digest('hex').slice(0, 40)}`;
}

/** Runs one firing; resolves with its ledger row, or null when another node already claimed it. */
export async function runFiring(deps: FireDeps, firing: Firing): Promise<LedgerRow | null> {
  const s = firing.schedule;
  const log = deps.logger.child({
    schedule: s.name,
    scope: `${s.scope_type}:${s.scope_id}`,
    target: firing.target_handle,
    scheduled_at: firing.scheduled_at,
  });
  // 1. claim, fenced: the check and the send are one synchronous step.
  const claim = encoder.encode(
    JSON.stringify({ node: deps.nodeId, identity: firingIdentity(firing), epoch: deps.epoch ?? null }),
  );
  if (deps.mayClaim?.() === false) throw new LeaseFencedError('duty.scheduler', deps.epoch ?? null);
  try {
    await deps.claims.create(claimKey(firing), claim);
  } catch (error) {
    if (error instanceof KvConflictError) {
      log.debug('firing already claimed elsewhere');
      return null;
    }
    throw error;
  }
  const firedAt = deps.now();
  const trace = createHash('sha256').update(firingIdentity(firing)).digest('hex').slice(0, 32);

  // 2. wake
  let outcome: LedgerRow['outcome'] = firing.outcome;
  if (firing.outcome === ScheduleOutcome.Fired) {
    const deadline = scheduledDeadline(firedAt, s.timeout_seconds);
    const wake: ScheduleWake = {
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
    const message: InboxMessage = {
      id: uuidv5(WAKE_NAMESPACE, firingIdentity(firing)),
      kind: InboxKind.Schedule,
      source: `${deps.nodeId}/scheduler`,
      received_at: firedAt.toISOString(),
      trace_id: trace,
      summary: `schedule ${s.name}: ${s.task}`.slice(0, 200),
      payload: wake,
    };
    try {
      await deps.bus.publish(
        Subjects.agentInbox(firing.target_handle),
        encoder.encode(JSON.stringify(message)),
        { msgId: message.id },
      );
    } catch (error) {
      outcome = ScheduleOutcome.Failed;
      log.error({ err: error }, 'schedule wake could not be delivered');
    }
  }

  // 3. ledger row
  const row: LedgerRow = {
    scope_type: s.scope_type,
    scope_id: s.scope_id,
    schedule_name: s.name,
    target_handle: firing.target_handle,
    scheduled_at: firing.scheduled_at,
    fired_at: firedAt.toISOString(),
    outcome,
  };
  const record = newEvent({
    type: SCHEDULE_FIRED,
    category: EventCategory.System,
    source: `${deps.nodeId}/scheduler`,
    summary: `schedule ${s.name} ${outcome} for ${firing.target_handle} (scheduled ${firing.scheduled_at})`,
    actor: 'scheduler',
    agent_id: firing.target_handle,
    payload: row,
    failed: outcome === ScheduleOutcome.Failed,
    trace: { trace_id: trace, parent_span_id: null },
    now: firedAt,
  });
  await deps.bus.publish(Subjects.event(SCHEDULE_FIRED), encoder.encode(JSON.stringify(record)), {
    msgId: record.id,
  });
  log.info({ outcome }, 'schedule fired');
  return row;
}
