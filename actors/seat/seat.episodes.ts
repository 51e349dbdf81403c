/**
 * A seat's episodes (turn.episode.ts): `episode_recorded` once per completed turn of a learning seat (its id
 * is the turn's), then the learning calls started after the turn rather than inside it: the profile of the
 * person who woke it where counterparty profiles are on (counterparty.host.ts), the reflection where it is on
 * (reflection.host.ts), and, where skill synthesis is on and the episode is worth it, the synthesis call
 * (skill.synthesis.host.ts) — or, with the synthesis scheduler on, a place in the seat's backlog for the
 * scheduled pass (skill.schedule.host.ts, also looked at hourly); where skill promotion is on, the uses of the
 * learned skills it read are counted (skill.promotion.host.ts). Where the seat has an episode ledger, each
 * episode joins it and the lifecycle runs its pass, after every episode and hourly (episode.lifecycle.host.ts).
 * A failure costs the episode, the profile, the lesson or the skill, never the turn.
 */
import type { Logger } from 'pino';
import type { SeatEvents } from './seat.events.js';
import type { SeatHostOptions } from './seat.host.types.js';
import type { SeatProfile } from './seat.profile.js';
import type { TurnCompletedPayload } from './seat.types.js';
import { worthSynthesis } from './skill.synthesis.js';
import { synthesizeSkill } from './skill.synthesis.host.js';
import { profileCounterparty } from './counterparty.host.js';
import { reflectOn } from './reflection.host.js';
import { countSkillUses } from './skill.promotion.host.js';
import { waitsForSchedule } from './skill.schedule.js';
import { queueForSchedule, scheduledPass } from './skill.schedule.host.js';
import type { TurnDeps } from './turn.deps.js';
import { episodeOf, type Episode, type EpisodeDraft } from './turn.episode.js';
import { EVENT_HISTORY_SECONDS } from '../../bus/index.js';
import { lifecycleLimits, noteConsolidated, noteRecorded, type Ledger } from './episode.lifecycle.js';
import { passLifecycle } from './episode.lifecycle.host.js';

/** How often a seat looks whether its scheduled synthesis pass is due (skill.schedule.ts) and runs its episode lifecycle. */
const HOURLY_CHECK_MS = 3600 * 1000;

export interface EpisodeRecorder {
  record(draft: EpisodeDraft, payload: TurnCompletedPayload): Promise<void>;
  /** Stops the periodic check (the seat stops). */
  stop(): void;
}

/** Runs each piece of work given after the one before has settled. */
function inTurn(): (work: () => Promise<void>) => void {
  let last: Promise<void> = Promise.resolve();
  return (work) => {
    last = last.then(work, work);
  };
}

export function episodeRecorder(host: {
  readonly opts: Pick<
    SeatHostOptions,
    'learning' | 'synthesis' | 'counterparty' | 'reflection' | 'episodes' | 'bus' | 'nodeId' | 'company'
  >;
  readonly handle: string;
  readonly log: Logger;
  readonly deps: Pick<TurnDeps, 'llm' | 'budget' | 'now'>;
  /** The seat's profile now (the learning calls run on its provider chain and budget). */
  readonly profile: () => SeatProfile;
  readonly events: Pick<SeatEvents, 'event' | 'publishEvent'>;
}): EpisodeRecorder {
  const { opts, handle, log, deps } = host;
  const { event, publishEvent } = host.events;
  const worker = {
    bus: opts.bus,
    node: opts.nodeId,
    llm: deps.llm,
    budget: deps.budget,
    logger: log,
    now: deps.now,
    publish: (type: string, body: Record<string, unknown>, id: string, trace?: string) =>
      publishEvent({ ...event(type, body, false, trace), id }),
  };
  const capsOf = (seat: SeatProfile) => ({ org: opts.company().token_budget, seat: seat.token_budget });
  // Work that reads and compare-and-sets keys the same work after the next turn writes takes turns: the
  // seat's skills (synthesis, the scheduled pass, promotion) and its profiles (a quick follow-up from the
  // same person must see the profile the first exchange left).
  const serially = inTurn();
  const profiling = inTurn();
  // The ledger's writers (an episode, its consolidation, the hourly pass) take turns too.
  const ledgerTurns = inTurn();

  const ledger = opts.episodes;
  /** Changes the seat's ledger (none: only the pass) and runs the lifecycle's pass; a no-op without one. */
  const lifecycle = (change?: (ledger: Ledger) => Ledger, trace?: string): void => {
    const given = ledger?.limits(handle) ?? null;
    if (!ledger || given === null) return;
    const deps = { ...worker, episodes: ledger.ledger, historyMs: ledger.historyMs ?? EVENT_HISTORY_SECONDS * 1000 }; // prettier-ignore
    const agentId = host.profile().agent_id;
    const limits = lifecycleLimits(given);
    ledgerTurns(() => passLifecycle(deps, { agentId, limits, ...(change ? { change } : {}), ...(trace ? { trace } : {}) })); // prettier-ignore
  };

  const synthesis = opts.synthesis;
  const check =
    synthesis || ledger
      ? setInterval(() => {
          lifecycle();
          const settings = synthesis?.settings(handle);
          if (!synthesis || settings?.scheduled !== true) return;
          const seat = host.profile();
          serially(() => scheduledPass({ ...worker, skills: synthesis.skills }, { seat, caps: capsOf(seat), refine: settings.refine })); // prettier-ignore
        }, HOURLY_CHECK_MS)
      : null;
  check?.unref();

  /** Reflection looked back on `episode` (lesson: the row that holds it), with its summaries maybe rewritten. */
  async function consolidated(
    episode: Episode,
    lessonId: string | null,
    summarized: Episode | null,
    trace: string,
  ) {
    const at = deps.now().toISOString();
    await worker.publish('episode_consolidated', { id: episode.id, consolidated_at: at, lesson_id: lessonId }, `consolidated-${episode.id}`, trace); // prettier-ignore
    lifecycle((l) => noteConsolidated(l, episode.id, at, summarized), trace);
  }

  async function record(draft: EpisodeDraft, payload: TurnCompletedPayload): Promise<void> {
    if (!(opts.learning?.(handle) ?? false)) return;
    const episode = episodeOf(draft, payload);
    if (!episode) return;
    const trace = draft.wake.trace_id;
    try {
      await publishEvent({
        ...event('episode_recorded', episode, false, trace),
        id: `episode-${episode.id}`,
      });
    } catch (error) {
      log.warn({ err: error, turn_id: payload.turn_id }, 'episode not recorded');
      return;
    }
    lifecycle((l) => noteRecorded(l, episode), trace);
    const seat = host.profile();
    const caps = capsOf(seat);
    const counterparty = opts.counterparty;
    if (counterparty?.enabled(handle))
      profiling(() => profileCounterparty({ ...worker, profiles: counterparty.profiles }, { seat, wake: draft.wake, episode, caps })); // prettier-ignore
    const reflection = opts.reflection;
    const reflect = reflection?.settings(handle) ?? null;
    if (reflection && reflect !== null)
      void reflectOn(
        { ...worker, memory: reflection.memory, consolidated },
        { seat, episode, caps, trace_id: trace, summarize: reflect.summarize },
      );
    if (!synthesis) return;
    const skills = { ...worker, skills: synthesis.skills };
    if (synthesis.promotes(handle))
      serially(() => countSkillUses(skills, { seat, episode, trace_id: trace }));
    const settings = synthesis.settings(handle);
    if (settings === null) return;
    if (worthSynthesis(episode))
      serially(() =>
        synthesizeSkill(skills, { seat, episode, caps, trace_id: trace, refine: settings.refine }),
      );
    else if (settings.scheduled && waitsForSchedule(episode))
      serially(() => queueForSchedule(skills, { seat, caps, refine: settings.refine }, episode, trace));
  }

  return {
    record,
    stop: () => {
      if (check) clearInterval(check);
    },
  };
}
