/**
 * The fleet's record of when each schedule's timing was first planned (`ScheduleTimings`), one key in
 * the coordination store. Every node merges its apply into it before re-planning, so a later duty
 * holder knows it even when the node that planned a schedule died before its next lease renewal.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { KvConflictError, type Kv } from '../../bus/index.js';
import { ScheduleTimings, type EffectiveSchedule } from '../../schema/index.js';
import { retime } from './scheduler.plan.js';

/** Not under `duty.`: that prefix holds leases only (`/fleet`, remove-peer). */
export const TIMINGS_KEY = 'scheduler.timings';

/** A lost compare-and-set means another node merged its apply first: read theirs and merge again. */
const ATTEMPTS = 5;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function decode(value: Uint8Array): ScheduleTimings | null {
  try {
    const parsed = ScheduleTimings.safeParse(JSON.parse(decoder.decode(value)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Merges the schedules applied at `at` into the recorded timings and answers the result. Never throws:
 * when the store cannot be used, the merge is made on `known` (what this process last recorded) and
 * not written.
 */
export async function recordTimings(
  kv: Kv,
  schedules: readonly EffectiveSchedule[],
  at: Date,
  known: ScheduleTimings | null,
  log: Logger,
): Promise<ScheduleTimings> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      const entry = await kv.get(TIMINGS_KEY);
      const recorded = entry === null ? null : decode(entry.value);
      const next = retime(recorded, schedules, at);
      if (recorded !== null && isDeepStrictEqual(next, recorded)) return next;
      const value = encoder.encode(JSON.stringify(next));
      if (entry === null) await kv.create(TIMINGS_KEY, value);
      else await kv.update(TIMINGS_KEY, value, entry.revision);
      return next;
    } catch (error) {
      if (error instanceof KvConflictError) continue;
      log.error({ err: error }, 'schedule timings could not be recorded');
      break;
    }
  }
  return retime(known, schedules, at);
}
