/** The inbox message that wakes a seat when its coding run asks, or ends while no call waits on it, and its sending. */
import { Subjects, type Bus } from '../../bus/index.js';
import { uuidv5, type InboxMessage, type SandboxRunRecord } from '../../schema/index.js';

const encoder = new TextEncoder();

/** Ids of a run's events and wakes derive from the run and its move, so a repeat stores them once. */
export const sandboxEventNamespace = '0b7f3c1e-5d2a-5e8f-9a41-6c3d2b1f0e9a';

function wakeMessage(run: SandboxRunRecord, what: 'asked' | 'ended', receivedAt: string): InboxMessage {
  const summary =
    what === 'asked'
      ? `Your coding run ${run.sandbox_id} asks: ${run.question ?? ''} — answer it with answer_sandbox.`
      : `Your coding run ${run.sandbox_id} ended ${run.status}: ${run.summary ?? run.error ?? ''}`;
  return {
    id: uuidv5(sandboxEventNamespace, `${run.sandbox_id}\u0000wake\u0000${run.updated_at}`),
    kind: 'sandbox',
    source: `sandbox:${run.sandbox_id}`,
    received_at: receivedAt,
    trace_id: run.trace_id,
    summary,
    payload: { sandbox_id: run.sandbox_id, status: run.status, question: run.question },
  };
}

/** Wakes the run's seat: the message goes to its inbox once (a repeat inside the bus's window is a duplicate). */
export async function wakeSeat(
  bus: Bus,
  run: SandboxRunRecord,
  what: 'asked' | 'ended',
  at: string,
): Promise<void> {
  const message = wakeMessage(run, what, at);
  await bus.publish(Subjects.agentInbox(run.agent_handle), encoder.encode(JSON.stringify(message)), {
    msgId: message.id,
  });
}
