/**
 * Keeps a seat's counterparty profiles (counterparty.ts) in the `svc_counterparty` bucket, one key
 * `<agent id>.<person key>` each, so any node that takes the seat over reads the same profile:
 *   - `about`: the prompt text on the person who woke a turn, read as the turn starts;
 *   - `profileCounterparty`: after the turn, the budget checked, one model call on the seat's provider chain
 *     (spend recorded as the `counterparty_profiler` worker's), the profile written and recorded as
 *     `counterparty_profile_updated` (the memory view's `counterparty_profiles`). The model is asked at most
 *     every PROFILER_REST_MS per person, about the exchanges held since; the interaction counts whenever it
 *     is not asked, the budget refuses or the answer is unreadable: the known traits stand.
 * Never throws: a failure costs the profile, not the turn. Each episode's spend and event are stored once.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Kv } from '../../bus/index.js';
import { Payloads, uuidv5 } from '../../schema/index.js';
import { readKvJson, writeKvJson } from '../kv-json.js';
import {
  aboutCounterparty,
  counterpartyKey,
  counterpartyOf,
  Exchange,
  EXCHANGES_HELD,
  exchangeOf,
  nextProfile,
  profilerRequest,
  readProfilerAnswer,
  type Counterparty,
  type CounterpartyProfile,
  type ProfilerAnswer,
} from './counterparty.js';
import { auxiliaryCall, type LearningDeps } from './learning.call.js';
import type { SeatProfile } from './seat.profile.js';
import type { Wake } from './seat.types.js';
import type { Episode } from './turn.episode.js';

const keyOf = (agentId: string, who: Counterparty): string => `${agentId}.${counterpartyKey(who)}`;

/**
 * The model is asked about a person at most once per this long: a conversation of many messages costs one
 * call, and the exchanges in between are held (the newest EXCHANGES_HELD) for the next one.
 */
export const PROFILER_REST_MS = 30 * 60 * 1000;

/**
 * A stored profile, the episode that last counted in it (a turn completed again counts once), when the model
 * was last asked, and the exchanges held since.
 */
const Stored = z
  .object({
    profile: Payloads.CounterpartyProfileUpdated,
    episode: z.string(),
    asked_at: z.string().nullable().default(null),
    held: z.array(Exchange).default([]),
  })
  .nullable();
type Stored = z.infer<typeof Stored>;

const rested = (stored: Stored, now: Date): boolean => {
  const asked = stored?.asked_at ? Date.parse(stored.asked_at) : NaN;
  return !Number.isNaN(asked) && now.getTime() - asked < PROFILER_REST_MS;
};

const readProfile = (kv: Kv, key: string) => readKvJson<Stored>(kv, key, Stored, null);

/**
 * Every profile a seat keeps (the memory view's `counterparty_profiles`): the bucket holds them for as long
 * as the seat knows the person, past the 30-day event history that announced them. Unreadable ones are left out.
 */
export async function seatProfiles(kv: Kv, agentId: string): Promise<CounterpartyProfile[]> {
  const out: CounterpartyProfile[] = [];
  for (const key of await kv.keys(`${agentId}.*`)) {
    const stored = await readProfile(kv, key).catch(() => null);
    if (stored?.value) out.push(stored.value.profile);
  }
  return out;
}

/** What the seat knows about the person who woke this turn; null when nobody did or nothing is known. */
export async function counterpartyAbout(kv: Kv, agentId: string, wake: Wake): Promise<string | null> {
  const who = counterpartyOf(wake);
  if (who === null) return null;
  const { value } = await readProfile(kv, keyOf(agentId, who));
  return value === null ? null : aboutCounterparty(value.profile);
}

export interface ProfilerDeps extends LearningDeps {
  /** The `svc_counterparty` bucket. */
  readonly profiles: Kv;
}

export interface ProfilerInput {
  readonly seat: SeatProfile;
  readonly wake: Wake;
  readonly episode: Episode;
  readonly caps: { readonly org: number; readonly seat: number };
}

export async function profileCounterparty(deps: ProfilerDeps, input: ProfilerInput): Promise<void> {
  const { seat, episode, wake } = input;
  const who = counterpartyOf(wake);
  if (who === null) return;
  const log = deps.logger.child({ worker: 'counterparty_profiler', turn_id: episode.turn_id });
  try {
    const key = keyOf(seat.agent_id, who);
    const { value: stored, revision } = await readProfile(deps.profiles, key);
    let profile: CounterpartyProfile;
    if (stored?.episode === episode.id) {
      // Counted by a run that stopped before its event: the event alone is left to store.
      profile = stored.profile;
    } else {
      const now = deps.now();
      const exchanges = [...(stored?.held ?? []), exchangeOf(episode)].slice(-EXCHANGES_HELD);
      const { asked, answer } = rested(stored, now)
        ? { asked: false, answer: null }
        : await askProfiler(deps, input, who, stored?.profile ?? null, exchanges, log);
      profile = nextProfile(stored?.profile ?? null, who, answer, now);
      const next: Stored = asked
        ? { profile, episode: episode.id, asked_at: now.toISOString(), held: [] }
        : { profile, episode: episode.id, asked_at: stored?.asked_at ?? null, held: exchanges };
      // Only the seat's holder writes here; the compare-and-set still keeps a stale holder from undoing a write.
      await writeKvJson(deps.profiles, key, next, revision);
    }
    await deps.publish(
      'counterparty_profile_updated',
      { ...profile },
      `profile-${episode.id}`,
      wake.trace_id,
    );
    log.info(
      {
        event: 'counterparty_profile_updated',
        platform: who.platform,
        interactions: profile.interaction_count,
      },
      'counterparty_profile_updated',
    );
  } catch (err) {
    log.warn({ err, event: 'counterparty_profile_failed' }, 'counterparty_profile_failed');
  }
}

/**
 * The model's revision of the traits (null when the answer is unreadable); not asked when the budget refuses
 * the call, and the exchanges then stay held.
 */
async function askProfiler(
  deps: ProfilerDeps,
  input: ProfilerInput,
  who: Counterparty,
  known: CounterpartyProfile | null,
  exchanges: readonly Exchange[],
  log: Logger,
): Promise<{ readonly asked: boolean; readonly answer: ProfilerAnswer | null }> {
  const { seat, episode } = input;
  const text = await auxiliaryCall(
    deps,
    {
      worker: 'counterparty_profiler',
      seat,
      request: profilerRequest(who, known, exchanges),
      trace_id: input.wake.trace_id,
      spendId: uuidv5(episode.id, 'counterparty-profiler-spend'),
      turn_id: episode.turn_id,
      caps: input.caps,
    },
    log,
  );
  if (text === null) return { asked: false, answer: null };
  const answer = readProfilerAnswer(text);
  if (answer === undefined) {
    log.warn({ event: 'counterparty_profiler_unreadable' }, 'the model did not answer with the traits JSON asked for'); // prettier-ignore
    return { asked: true, answer: null };
  }
  return { asked: true, answer };
}
