/**
 * Runs scheduled skill synthesis (skill.schedule.ts) for one seat: `queue` puts an episode in the seat's
 * backlog and runs a pass when one is due; `pass` runs it when due (the seat's hourly check). A pass checks
 * the budget, asks the seat's model once about the waiting episodes (spend recorded as the
 * `skill_synthesizer` worker's), keeps a skill written like per-turn synthesis does (learned set,
 * `skill_synthesized`), and empties the backlog. Never throws: a failure costs the pass, not the turn.
 * Only the seat's holder writes; compare-and-set keeps a stale holder from undoing a write.
 */
import type { Logger } from 'pino';
import type { Bus, Kv } from '../../bus/index.js';
import { uuidv5 } from '../../schema/index.js';
import { learnedKey, readLearned } from '../skills/index.js';
import type { Budget } from './budget.js';
import {
  addToBacklog,
  Backlog,
  batchRequest,
  commonSequence,
  emptyBacklog,
  passDue,
} from './skill.schedule.js';
import { learn, readSynthesis } from './skill.synthesis.js';
import type { SeatProfile } from './seat.profile.js';
import { recordAuxiliarySpend } from './spend.js';
import type { TurnDeps } from './turn.deps.js';
import type { Episode } from './turn.episode.js';

export interface ScheduleDeps {
  readonly bus: Bus;
  /** The `svc_tool_skills` bucket. */
  readonly skills: Kv;
  readonly node: string;
  readonly llm: TurnDeps['llm'];
  readonly budget: Budget;
  readonly logger: Logger;
  readonly now: () => Date;
  /** An event about the seat (fenced by its lease), stored under the record's id. */
  publish(type: string, payload: Record<string, unknown>, id: string, trace: string): Promise<void>;
}

export interface ScheduleInput {
  readonly seat: SeatProfile;
  readonly caps: { readonly org: number; readonly seat: number };
  /** `learning.skill_refinement`: a skill of the same name may be rewritten. */
  readonly refine: boolean;
}

/** Namespace of pass ids: uuidv5(namespace, the batch's episode ids), so a repeated pass records once. */
const PASS_NAMESPACE = '7c9e2f4a-1b3d-5e6f-8a9b-0c1d2e3f4a5b';
const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const backlogKey = (agentId: string): string => `backlog.${agentId}`;

async function readBacklog(kv: Kv, agentId: string): Promise<{ backlog: Backlog; revision: number | null }> {
  const entry = await kv.get(backlogKey(agentId));
  if (entry === null) return { backlog: emptyBacklog(), revision: null };
  try {
    const parsed = Backlog.safeParse(JSON.parse(decoder.decode(entry.value)));
    return { backlog: parsed.success ? parsed.data : emptyBacklog(), revision: entry.revision };
  } catch {
    return { backlog: emptyBacklog(), revision: entry.revision };
  }
}

async function put(kv: Kv, key: string, value: unknown, revision: number | null): Promise<void> {
  const bytes = encoder.encode(JSON.stringify(value));
  if (revision === null) await kv.create(key, bytes);
  else await kv.update(key, bytes, revision);
}

/** Puts a done episode in the backlog, then runs the pass if one is due. */
export async function queueForSchedule(
  deps: ScheduleDeps,
  input: ScheduleInput,
  episode: Episode,
  trace: string,
): Promise<void> {
  const log = deps.logger.child({ worker: 'skill_synthesizer', scheduled: true });
  try {
    const { backlog, revision } = await readBacklog(deps.skills, input.seat.agent_id);
    const next = addToBacklog(backlog, episode);
    if (passDue(next, deps.now())) await runPass(deps, input, next, revision, trace, log);
    else if (next !== backlog) await put(deps.skills, backlogKey(input.seat.agent_id), next, revision);
  } catch (err) {
    log.warn({ err, event: 'skill_synthesis_failed' }, 'skill_synthesis_failed');
  }
}

/** Runs the pass if one is due (the seat's periodic check). */
export async function scheduledPass(deps: ScheduleDeps, input: ScheduleInput): Promise<void> {
  const log = deps.logger.child({ worker: 'skill_synthesizer', scheduled: true });
  try {
    const { backlog, revision } = await readBacklog(deps.skills, input.seat.agent_id);
    if (passDue(backlog, deps.now())) await runPass(deps, input, backlog, revision, null, log);
  } catch (err) {
    log.warn({ err, event: 'skill_synthesis_failed' }, 'skill_synthesis_failed');
  }
}

async function runPass(
  deps: ScheduleDeps,
  input: ScheduleInput,
  backlog: Backlog,
  revision: number | null,
  trace: string | null,
  log: Logger,
): Promise<void> {
  const { seat } = input;
  const refused = await deps.budget.check(seat.handle, input.caps);
  if (refused) {
    // The episodes keep waiting; the next pass is an interval away.
    await put(deps.skills, backlogKey(seat.agent_id), { ...backlog, last_run: deps.now().toISOString() }, revision); // prettier-ignore
    log.info(
      { event: 'skill_synthesis_skipped', reason: `${refused.scope}_budget` },
      'skill_synthesis_skipped',
    );
    return;
  }
  const batch = backlog.episodes;
  const passId = uuidv5(PASS_NAMESPACE, batch.map((e) => e.id).join(','));
  const traceId = trace ?? passId.replaceAll('-', '');
  const known = await readLearned(deps.skills, seat.agent_id);
  const chain = deps.llm.resolve(seat.llm ? { llm: seat.llm } : seat.handle);
  const spanTrace = { trace_id: traceId, parent_span_id: null };
  const result = await deps.llm.call(chain, batchRequest(batch, known.skills), { seat: seat.handle, trace: spanTrace }).result(); // prettier-ignore
  await recordAuxiliarySpend(
    { bus: deps.bus, node: deps.node, budget: deps.budget },
    {
      worker: 'skill_synthesizer',
      provider: result.provider,
      model: result.model,
      ...result.usage,
      seat: { handle: seat.handle, agent_id: seat.agent_id, role: seat.name },
      turn_id: null,
      trace: spanTrace,
      id: uuidv5(passId, 'spend'),
      at: deps.now(),
    },
  );
  // The batch was read: it leaves the backlog whatever the answer (a later pass reads newer episodes).
  await put(deps.skills, backlogKey(seat.agent_id), { episodes: [], last_run: deps.now().toISOString() }, revision); // prettier-ignore
  const written = readSynthesis(result.text);
  if (written === undefined) {
    log.warn(
      { event: 'skill_synthesis_unreadable' },
      'the model did not answer with the skill JSON asked for',
    );
    return;
  }
  if (written === null) return;
  const { skills, recorded } = learn(known.skills, written, {
    agentId: seat.agent_id,
    toolSequence: commonSequence(batch),
    refine: input.refine,
    now: deps.now(),
  });
  if (recorded === null) return;
  await put(deps.skills, learnedKey(seat.agent_id), { skills }, known.revision);
  await deps.publish(
    'skill_synthesized',
    { ...recorded },
    `skill-${recorded.id}-v${recorded.version}`,
    traceId,
  );
  log.info({ event: 'skill_synthesized', skill: recorded.name, version: recorded.version, episodes: batch.length }, 'skill_synthesized'); // prettier-ignore
}
