/**
 * What a run's move owes after its store (ops/sandboxes.md "The run record"): its `sandbox_run_*` event and,
 * for a question or an end no tool call waits on, the seat's wake. The move is stored carrying them
 * (`owed`), they are done, then the record is stored again without them. A node cut in between finds them
 * on its record when it starts and does them then; only the node that stored the move does, so two nodes
 * never race to clear one record.
 *
 * Doing them twice is harmless, which is why the mark can be written before them: the event's id and the
 * wake's derive from the run and its move, so a repeat inside the stream's duplicate window is not stored
 * again; a wake repeated later still runs no second turn, as the seat takes a wake whose turn completed
 * (`svc_turns_done`, its turn id derived from the wake id) without running it; an event stored twice
 * reads as one (read models keep the newest run per id, history rows are deduplicated by id).
 */
import { publishEvent, newEvent, type Bus } from '../../bus/index.js';
import {
  EventCategory,
  uuidv5,
  type Payloads,
  type SandboxOwed,
  type SandboxRunRecord,
} from '../../schema/index.js';
import { isLive, publicRun, type SandboxRecords } from './sandbox.records.js';
import { sandboxEventNamespace, wakeSeat } from './sandbox.wake.js';

type EventType = (typeof Payloads.SandboxEventTypes)[number];

/** What a move that publishes `emit` owes: a question wakes the seat, an end does when nobody waits on it. */
export function owedBy(node: string, run: SandboxRunRecord, emit: EventType, watched: boolean): SandboxOwed {
  const wake = run.status === 'awaiting_clarification' ? 'asked' : !isLive(run) && !watched ? 'ended' : null;
  return { by: node, event: emit, wake };
}

/** Publishes the record's owed event, wakes its seat if owed, then stores it owing nothing; the stored run. */
export async function payOwed(
  bus: Bus,
  records: SandboxRecords,
  run: SandboxRunRecord,
  now: () => Date,
): Promise<SandboxRunRecord> {
  const owed = run.owed;
  if (owed === null) return run;
  await publishEvent(bus, {
    ...newEvent({
      type: owed.event,
      category: EventCategory.Lifecycle,
      source: `sandbox/${owed.by}`,
      actor: run.agent_handle,
      agent_id: run.agent_handle,
      summary: `coding run ${run.sandbox_id} of ${run.agent_handle}: ${run.status}`,
      payload: publicRun(run),
      failed: owed.event === 'sandbox_run_failed',
      trace: { trace_id: run.trace_id, parent_span_id: run.span_id },
      now: new Date(run.updated_at),
    }),
    id: uuidv5(sandboxEventNamespace, `${run.sandbox_id}\u0000${owed.event}\u0000${run.updated_at}`),
  });
  if (owed.wake !== null) await wakeSeat(bus, run, owed.wake, now().toISOString());
  const paid = { ...run, owed: null };
  await records.put(paid);
  return paid;
}
