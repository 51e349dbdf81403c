/**
 * Whether a lease's holder process still lives (ops/fleet.md "A restarted node, a duplicate node id").
 * Every lease-taking component answers on its instance's subject while it runs; a restarted node asks
 * the instance named by a live lease of its own node id. No responder: that earlier process is gone,
 * so the lease may be taken at once. A reply, or no answer in time: a live process of the same node id
 * (a duplicate) holds it, and it is waited out like a peer's.
 */
import { NoRespondersError, Subjects, type Bus, type Subscription } from '../../bus/index.js';
import type { DutyLease } from '../../schema/index.js';

const askTimeoutMs = 2_000;
const empty = new Uint8Array();

/** Answers liveness questions about `instance` until stopped. */
export function answerHolder(bus: Pick<Bus, 'reply'>, instance: string): Subscription {
  return bus.reply(Subjects.leaseHolder(instance), () => Promise.resolve(empty));
}

/** `holderGone` for `acquireLease`: true only when nothing answers for the lease's instance. */
export function holderGoneOver(bus: Pick<Bus, 'request'>): (lease: DutyLease) => Promise<boolean> {
  return async (lease) => {
    try {
      await bus.request(Subjects.leaseHolder(lease.instance), empty, { timeoutMs: askTimeoutMs });
      return false;
    } catch (error) {
      return error instanceof NoRespondersError;
    }
  };
}
