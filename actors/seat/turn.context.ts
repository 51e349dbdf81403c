/**
 * What a seat knows that bears on a turn, read once as the turn starts and given to its plan and execute
 * prompts: its profile of the person who woke it (counterparty profiles) and the lessons reflection kept from
 * earlier tasks like this one (the long memory rows it wrote, ranked by meaning with embeddings on, else by the
 * wake's words). A source that
 * cannot be read is left out: the turn runs without it.
 */
import type { Logger } from 'pino';
import { scoreRow } from '../memory/index.js';
import { MemoryKind } from '../toolservers/index.js';
import { counterpartyAbout } from './counterparty.host.js';
import type { SeatCounterparty, SeatReflection } from './seat.host.types.js';
import type { Wake } from './seat.types.js';

/** Lessons a prompt carries: the best-matching few, so they inform without crowding the trigger. */
export const LESSONS_IN_PROMPT = 3;
/**
 * How well a lesson must match the wake (the memory store's score: 2 per word of the wake it holds whole):
 * two words at least, so one common word ("the", "fix") does not bring a lesson to an unlike task.
 */
const LESSON_MIN_SCORE = 4;

export interface TurnContextSources {
  readonly counterparty?: SeatCounterparty;
  readonly reflection?: SeatReflection;
}

async function lessonsFor(
  reflection: SeatReflection,
  agentId: string,
  wake: Wake,
  now: Date,
): Promise<string | null> {
  if (wake.summary.trim() === '') return null;
  const rows = await reflection.memory.recall(agentId, {
    query: wake.summary,
    kind: MemoryKind.Long,
    limit: 50,
    include_expired: false,
    now,
  });
  // Rows ranked by meaning say whether they are related (the embeddings block's `min_similarity`): the word
  // filter alone would drop exactly the lessons embeddings found (same task, other words). A lesson that
  // matches by words is kept either way.
  const bears = (row: (typeof rows)[number]): boolean =>
    row.related === true || scoreRow(row, wake.summary) >= LESSON_MIN_SCORE;
  const lessons = rows
    .filter((row) => row.metadata['source'] === 'reflection' && bears(row))
    .slice(0, LESSONS_IN_PROMPT);
  if (lessons.length === 0) return null;
  return ['Lessons you kept from earlier tasks like this one:', ...lessons.map((l) => `- ${l.content}`)].join(
    '\n',
  );
}

export async function turnContext(
  sources: TurnContextSources,
  seat: { readonly handle: string; readonly agent_id: string },
  wake: Wake,
  now: Date,
  log: Logger,
): Promise<string | null> {
  const parts: string[] = [];
  const read = async (what: string, part: () => Promise<string | null>): Promise<void> => {
    try {
      const text = await part();
      if (text !== null) parts.push(text);
    } catch (error) {
      log.warn({ err: error }, `${what} not read`);
    }
  };
  const { counterparty, reflection } = sources;
  if (counterparty?.enabled(seat.handle))
    await read('counterparty profile', () => counterpartyAbout(counterparty.profiles, seat.agent_id, wake));
  if (reflection && reflection.settings(seat.handle) !== null)
    await read('lessons', () => lessonsFor(reflection, seat.agent_id, wake, now));
  return parts.length === 0 ? null : parts.join('\n\n');
}
