/**
 * A seat's episodes (turn.episode.ts): `episode_recorded` once per completed turn of a learning seat (its id
 * is the turn's), then the learning calls started after the turn rather than inside it: the profile of the
 * person who woke it where counterparty profiles are on (counterparty.host.ts), the reflection where it is on
 * (reflection.host.ts), and, where skill synthesis is on and the episode is worth it, the synthesis call
 * (skill.synthesis.host.ts); where skill promotion is on, the uses of the learned skills it read are counted
 * (skill.promotion.host.ts). A failure costs the episode, the profile, the lesson or the skill, never the turn.
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
import type { TurnDeps } from './turn.deps.js';
import { episodeOf, type EpisodeDraft } from './turn.episode.js';

export function episodeRecorder(host: {
  readonly opts: Pick<
    SeatHostOptions,
    'learning' | 'synthesis' | 'counterparty' | 'reflection' | 'bus' | 'nodeId' | 'company'
  >;
  readonly handle: string;
  readonly log: Logger;
  readonly deps: Pick<TurnDeps, 'llm' | 'budget' | 'now'>;
  /** The seat's profile now (the synthesis call runs on its provider chain and budget). */
  readonly profile: () => SeatProfile;
  readonly events: Pick<SeatEvents, 'event' | 'publishEvent'>;
}): (draft: EpisodeDraft, payload: TurnCompletedPayload) => Promise<void> {
  const { opts, handle, log, deps } = host;
  const { event, publishEvent } = host.events;
  return async (draft, payload) => {
    if (!(opts.learning?.(handle) ?? false)) return;
    const episode = episodeOf(draft, payload);
    if (!episode) return;
    const record = {
      ...event('episode_recorded', episode, false, draft.wake.trace_id),
      id: `episode-${episode.id}`,
    };
    try {
      await publishEvent(record);
    } catch (error) {
      log.warn({ err: error, turn_id: payload.turn_id }, 'episode not recorded');
      return;
    }
    const seat = host.profile();
    const caps = { org: opts.company().token_budget, seat: seat.token_budget };
    const worker = {
      bus: opts.bus,
      node: opts.nodeId,
      llm: deps.llm,
      budget: deps.budget,
      logger: log,
      now: deps.now,
      publish: (type: string, body: Record<string, unknown>, id: string, trace: string) =>
        publishEvent({ ...event(type, body, false, trace), id }),
    };
    const counterparty = opts.counterparty;
    if (counterparty?.enabled(handle))
      void profileCounterparty({ ...worker, profiles: counterparty.profiles }, { seat, wake: draft.wake, episode, caps }); // prettier-ignore
    const reflection = opts.reflection;
    const reflect = reflection?.settings(handle) ?? null;
    if (reflection && reflect !== null)
      void reflectOn(
        { ...worker, memory: reflection.memory },
        { seat, episode, caps, trace_id: draft.wake.trace_id, summarize: reflect.summarize },
      );
    const synthesis = opts.synthesis;
    if (synthesis?.promotes(handle))
      void countSkillUses(
        { ...worker, skills: synthesis.skills },
        { seat, episode, trace_id: draft.wake.trace_id },
      );
    const settings = synthesis?.settings(handle) ?? null;
    if (!synthesis || settings === null || !worthSynthesis(episode)) return;
    void synthesizeSkill(
      { ...worker, skills: synthesis.skills },
      { seat, episode, caps, trace_id: draft.wake.trace_id, refine: settings.refine },
    );
  };
}
