/**
 * Runs scheduled skill synthesis (skill.schedule.ts) for one seat: `queue` puts an episode in the seat's
 * backlog and runs a pass when one is due; `pass` runs it when due (the seat's hourly check). A pass checks
 * the budget, asks the seat's model once about the waiting episodes (spend recorded as the
 * `skill_synthesizer` worker's), keeps a skill written like per-turn synthesis does (learned set,
 * `skill_synthesized`), and empties the backlog. Never throws: a failure costs the pass, not the turn.
 * Only the seat's holder writes; compare-and-set keeps a stale holder from undoing a write.
 */
import type { Logger } from 'pino';
import type { Kv } from '../../bus/index.js';
import { uuidv5 } from '../../schema/index.js';
import { readKvJson, writeKvJson } from '../kv-json.js';
import { readLearned } from '../skills/index.js';
import { auxiliaryCall } from './learning.call.js';
import {
  addToBacklog,
  Backlog,
  batchRequest,
  commonSequence,
  emptyBacklog,
  passDue,
} from './skill.schedule.js';
import { keepSkill, type SynthesisDeps } from './skill.synthesis.host.js';
import type { SeatProfile } from './seat.profile.js';
import type { Episode } from './turn.episode.js';

export interface ScheduleInput {
  readonly seat: SeatProfile;
  readonly caps: { readonly org: number; readonly seat: number };
  /** `learning.skill_refinement`: a skill of the same name may be rewritten. */
  readonly refine: boolean;
}

/** Namespace of pass ids: uuidv5(namespace, the batch's episode ids), so a repeated pass records once. */
const PASS_NAMESPACE = '7c9e2f4a-1b3d-5e6f-8a9b-0c1d2e3f4a5b';
export const backlogKey = (agentId: string): string => `backlog.${agentId}`;

async function readBacklog(kv: Kv, agentId: string): Promise<{ backlog: Backlog; revision: number | null }> {
  const { value, revision } = await readKvJson(kv, backlogKey(agentId), Backlog, emptyBacklog());
  return { backlog: value, revision };
}

/** Puts a done episode in the backlog, then runs the pass if one is due. */
export async function queueForSchedule(
  deps: SynthesisDeps,
  input: ScheduleInput,
  episode: Episode,
  trace: string,
): Promise<void> {
  const log = deps.logger.child({ worker: 'skill_synthesizer', scheduled: true });
  try {
    const { backlog, revision } = await readBacklog(deps.skills, input.seat.agent_id);
    const next = addToBacklog(backlog, episode);
    if (passDue(next, deps.now())) await runPass(deps, input, next, revision, trace, log);
    else if (next !== backlog)
      await writeKvJson(deps.skills, backlogKey(input.seat.agent_id), next, revision);
  } catch (err) {
    log.warn({ err, event: 'skill_synthesis_failed' }, 'skill_synthesis_failed');
  }
}

/** Runs the pass if one is due (the seat's periodic check). */
export async function scheduledPass(deps: SynthesisDeps, input: ScheduleInput): Promise<void> {
  const log = deps.logger.child({ worker: 'skill_synthesizer', scheduled: true });
  try {
    const { backlog, revision } = await readBacklog(deps.skills, input.seat.agent_id);
    if (passDue(backlog, deps.now())) await runPass(deps, input, backlog, revision, null, log);
  } catch (err) {
    log.warn({ err, event: 'skill_synthesis_failed' }, 'skill_synthesis_failed');
  }
}

async function runPass(
  deps: SynthesisDeps,
  input: ScheduleInput,
  backlog: Backlog,
  revision: number | null,
  trace: string | null,
  log: Logger,
): Promise<void> {
  const { seat } = input;
  const batch = backlog.episodes;
  const passId = uuidv5(PASS_NAMESPACE, batch.map((e) => e.id).join(','));
  const traceId = trace ?? passId.replaceAll('-', '');
  const known = await readLearned(deps.skills, seat.agent_id);
  const answer = await auxiliaryCall(
    deps,
    {
      worker: 'skill_synthesizer',
      seat,
      request: batchRequest(batch, known.skills),
      trace_id: traceId,
      spendId: uuidv5(passId, 'spend'),
      turn_id: null,
      caps: input.caps,
    },
    log,
  );
  const lastRun = deps.now().toISOString();
  // Refused by the budget, the episodes keep waiting for the next interval; read, the batch leaves the
  // backlog whatever the answer (a later pass reads newer episodes).
  const next = answer === null ? { ...backlog, last_run: lastRun } : { episodes: [], last_run: lastRun };
  await writeKvJson(deps.skills, backlogKey(seat.agent_id), next, revision);
  if (answer === null) return;
  await keepSkill(deps, known, answer, { agentId: seat.agent_id, toolSequence: commonSequence(batch), refine: input.refine, trace_id: traceId }, log); // prettier-ignore
}
