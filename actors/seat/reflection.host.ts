/**
 * Runs reflection (reflection.ts) for one recorded episode: the budget checked, one model call on the seat's
 * own provider chain (spend recorded as the `reflector` worker's), then the lesson kept as a long personal
 * memory row with its `memory_remembered`, and, with `summarize_episodes`, the episode recorded again with
 * the model's summaries (the memory view keeps the later record of an episode id). Never throws: a failure
 * costs the lesson, not the turn. Every id derives from the episode's, so a repeat stores nothing twice.
 */
import { uuidv5 } from '../../schema/index.js';
import type { PersonalMemory } from '../toolservers/index.js';
import { auxiliaryCall, type LearningDeps } from './learning.call.js';
import { lessonRow, readReflection, reflectionRequest, summarizedEpisode } from './reflection.js';
import type { SeatProfile } from './seat.profile.js';
import type { Episode } from './turn.episode.js';

export interface ReflectionDeps extends LearningDeps {
  readonly memory: PersonalMemory;
  /** Told once the episode is reflected on (the lesson's row id, or null), with the episode as summarized. */
  consolidated?(
    episode: Episode,
    lessonId: string | null,
    summarized: Episode | null,
    trace: string,
  ): Promise<void>;
}

export interface ReflectionInput {
  readonly seat: SeatProfile;
  readonly episode: Episode;
  readonly caps: { readonly org: number; readonly seat: number };
  readonly trace_id: string;
  /** `learning.reflect.summarize_episodes`. */
  readonly summarize: boolean;
}

export async function reflectOn(deps: ReflectionDeps, input: ReflectionInput): Promise<void> {
  const { seat, episode } = input;
  const log = deps.logger.child({ worker: 'reflector', turn_id: episode.turn_id });
  try {
    const answer = await auxiliaryCall(
      deps,
      {
        worker: 'reflector',
        seat,
        request: reflectionRequest(episode, input.summarize),
        trace_id: input.trace_id,
        spendId: uuidv5(episode.id, 'reflection-spend'),
        turn_id: episode.turn_id,
        caps: input.caps,
      },
      log,
    );
    if (answer === null) return;
    const reflection = readReflection(answer, input.summarize);
    if (reflection === undefined) {
      log.warn({ event: 'reflection_unreadable' }, 'the model did not answer with the reflection JSON asked for'); // prettier-ignore
      return;
    }
    let lessonId: string | null = null;
    if (reflection.lesson !== null) {
      const row = lessonRow(episode, reflection.lesson, deps.now());
      lessonId = row.id;
      await deps.memory.remember(seat.agent_id, row);
      const remembered = { memory_id: row.id, kind: row.kind, ttl_until: null, content_chars: row.content.length, turn_id: episode.turn_id }; // prettier-ignore
      await deps.publish('memory_remembered', remembered, row.id, input.trace_id);
    }
    const summarized = input.summarize ? summarizedEpisode(episode, reflection) : null;
    if (summarized !== null)
      await deps.publish('episode_recorded', { ...summarized }, `episode-${episode.id}-summarized`, input.trace_id); // prettier-ignore
    await deps.consolidated?.(episode, lessonId, summarized, input.trace_id);
    log.info(
      { event: 'reflected', lesson: reflection.lesson !== null, summarized: summarized !== null },
      'reflected',
    );
  } catch (err) {
    log.warn({ err, event: 'reflection_failed' }, 'reflection_failed');
  }
}
