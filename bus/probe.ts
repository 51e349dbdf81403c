/**
 * Whether anyone answers on a subject: a process answers its own liveness subject while it runs, and a
 * peer asks it before acting on that process's behalf. Not a command (no body either way), so it lives
 * with the bus's helpers rather than in the command catalogue.
 */
import type { Bus, Subscription } from './bus.js';
import { NoRespondersError } from './errors.js';

const empty = new Uint8Array();

/** Answers every probe on `subject` (with nothing) until unsubscribed. */
export function answerProbes(bus: Pick<Bus, 'reply'>, subject: string): Subscription {
  return bus.reply(subject, () => Promise.resolve(empty));
}

/**
 * `answered` when someone answers on `subject` within `timeoutMs`, `gone` when the bus says nobody listens,
 * `silent` when nobody answers in time (a paused or slow process).
 */
export async function probeOutcome(
  bus: Pick<Bus, 'request'>,
  subject: string,
  timeoutMs: number,
): Promise<'answered' | 'gone' | 'silent'> {
  try {
    await bus.request(subject, empty, { timeoutMs });
    return 'answered';
  } catch (error) {
    return error instanceof NoRespondersError ? 'gone' : 'silent';
  }
}

/**
 * `gone` when the bus says nobody listens on `subject`; `live` when someone answers, and also when nobody
 * answers within `timeoutMs` (a paused or slow process is not a gone one).
 */
export async function probe(
  bus: Pick<Bus, 'request'>,
  subject: string,
  timeoutMs: number,
): Promise<'live' | 'gone'> {
  return (await probeOutcome(bus, subject, timeoutMs)) === 'gone' ? 'gone' : 'live';
}
