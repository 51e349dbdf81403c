/**
 * A seat's episodes (turn.episode.ts): `episode_recorded` once per completed turn of a learning seat (its id
 * is the turn's), then, where skill synthesis is on and the episode is worth it, the synthesis call
 * (skill.synthesis.host.ts) started after the turn rather than inside it. A failure costs the episode or
 * the skill, never the turn.
 */
import type { Logger } from 'pino';
import type { SeatEvents } from './seat.events.js';
import type { SeatHostOptions } from './seat.host.types.js';
import type { SeatProfile } from './seat.profile.js';
import type { TurnCompletedPayload } from './seat.types.js';
import { worthSynthesis } from './skill.synthesis.js';
import { synthesizeSkill } from './skill.synthesis.host.js';
import type { TurnDeps } from './turn.deps.js';
import { episodeOf, type EpisodeDraft } from './turn.episode.js';

export function episodeRecorder(host: {
  readonly opts: Pick<SeatHostOptions, 'learning' | 'synthesis' | 'bus' | 'nodeId' | 'company'>;
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
    const synthesis = opts.synthesis;
    const settings = synthesis?.settings(handle) ?? null;
    if (!synthesis || settings === null || !worthSynthesis(episode)) return;
    const seat = host.profile();
    void synthesizeSkill(
      {
        bus: opts.bus,
        skills: synthesis.skills,
        node: opts.nodeId,
        llm: deps.llm,
        budget: deps.budget,
        logger: log,
        now: deps.now,
        publish: (type, body, id, trace) => publishEvent({ ...event(type, body, false, trace), id }),
      },
      {
        seat,
        episode,
        caps: { org: opts.company().token_budget, seat: seat.token_budget },
        trace_id: draft.wake.trace_id,
        refine: settings.refine,
      },
    );
  };
}
