/**
 * Whether a lease's holder process still lives (ops/fleet.md "A restarted node, a duplicate node id").
 * Every lease-taking component answers on its instance's subject while it runs; a restarted node asks
 * the instance named by a live lease of its own node id. No responder: that earlier process is gone,
 * so the lease may be taken at once. A reply, or no answer in time: a live process of the same node id
 * (a duplicate) holds it, and it is waited out like a peer's.
 */
import { answerProbes, probe, Subjects, type Bus, type Subscription } from '../../bus/index.js';
import type { DutyLease } from '../../schema/index.js';

const askTimeoutMs = 2_000;

/** Answers liveness questions about `instance` until stopped. */
export function answerHolder(bus: Pick<Bus, 'reply'>, instance: string): Subscription {
  return answerProbes(bus, Subjects.leaseHolder(instance));
}

/** `holderGone` for `acquireLease`: true only when nothing answers for the lease's instance. */
export function holderGoneOver(bus: Pick<Bus, 'request'>): (lease: DutyLease) => Promise<boolean> {
  return async (lease) => (await probe(bus, Subjects.leaseHolder(lease.instance), askTimeoutMs)) === 'gone';
}
