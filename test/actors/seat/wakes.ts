/** Scheduled wakes as the scheduler sends them, and the seat's record that a wake's turn is done. */
import { randomUUID } from 'node:crypto';
import { seatKeys } from '../../../actors/index.js';
import { Subjects } from '../../../bus/index.js';
import { InboxKind, scheduledDeadline, type InboxMessage, type ScheduleWake } from '../../../schema/index.js';
import type { Harness } from './harness.js';

/** What the scheduler puts on a seat's inbox (actors/scheduler/fire.ts), fired at `firedAt`. */
export async function scheduledWake(
  h: Harness,
  handle: string,
  /** `id`: the wake's id (a wake delivered again carries its first delivery's). */
  opts: { firedAt: Date; timeoutSeconds: number; id?: string },
): Promise<string> {
  const wake: ScheduleWake = {
    scope_type: 'role',
    scope_id: handle,
    schedule_name: 'nightly',
    task: 'tidy the tracker',
    target: 'each',
    scheduled_at: opts.firedAt.toISOString(),
    fired_at: opts.firedAt.toISOString(),
    timeout_seconds: opts.timeoutSeconds,
    deadline: scheduledDeadline(opts.firedAt, opts.timeoutSeconds)?.toISOString() ?? null,
  };
  const message: InboxMessage = {
    id: opts.id ?? randomUUID(),
    kind: InboxKind.Schedule,
    source: 'node-0/scheduler',
    received_at: opts.firedAt.toISOString(),
    trace_id: randomUUID().replaceAll('-', ''),
    summary: `schedule nightly: ${wake.task}`,
    payload: wake,
  };
  await h.bus.publish(Subjects.agentInbox(handle), new TextEncoder().encode(JSON.stringify(message)));
  return message.id;
}

/**
 * Resolves once the seat has recorded the turn done in `svc_turns_done` (after its
 * `agent_turn_completed` is stored): from then on a redelivery of the wake is acknowledged without running.
 */
export async function recordedDone(h: Harness, handle: string, turnId: string): Promise<void> {
  const key = seatKeys.turnDone(handle, turnId);
  let resolve = (): void => undefined;
  const seen = new Promise<void>((r) => (resolve = r));
  const sub = await h.catalogue.turnsDone.watch((e) => e.operation === 'put' && resolve(), { key });
  try {
    await seen;
  } finally {
    await sub.stop();
  }
}
