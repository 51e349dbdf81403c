/**
 * `svc agents <verb>`: the agent seats of a running node from a terminal (ops/turn-engine.md "Pause and
 * resume", ops/read-models.md "Agent rows"). Reads print as tables or, with --json, the answer as is; a pause,
 * resume or clear prints what it changed. Every verb is one request; the token comes from SVC_TOKEN.
 */
import { helpExit, nodeContext, nodeFlagsHelp, parseNodeArgs, refuseOtherVerbsFlags } from './cli-args.js';
import { answerText, pathSegment, queryOf } from './cli-json.js';
import { unknownVerb } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { activityTable, agentDetail, agentsTable, clearChange, pauseChange } from './agents-view.js';
import { AnswerShapeError } from './cli-shape.js';
import { intFlag, shapeFlag } from './cli-flags.js';
import { queryRanges, SEAT_REASON_MAX } from '../schema/index.js';

const { activityDays } = queryRanges;

export const agentsHelp = `Usage: svc agents [<verb>] [flags]

Verbs (against a running node; token from $SVC_TOKEN: pause, resume and clear-needs always need one, the
reads when the node refuses anonymous reads):
  list         [--json]     the agent seats (the default verb): activity or why stopped, pause, the question
                            the seat waits on, tokens over 24 h, budget used/cap, last error
  show         ID [--json]  one seat (ID: handle or role name): turn, pause, live call, last turn and
                            error, tokens, budget, its latest LLM calls (--json: all the node keeps, 50)
  activity     [--days N] [--json]
                            per seat over N company days (${activityDays.min} to ${activityDays.max}, default ${activityDays.fallback}): turns, failed, first-pass
                            rate over reviewed turns, duration quantiles (--json adds the day series)
  pause        ID [--reason TEXT] [--stop-running] [--json]
                            no new turn starts; --stop-running also cuts the running one (it resumes
                            with the seat). A second pause changes nothing (resume, then pause again)
  resume       ID [--reason TEXT] [--json]
                            the seat takes turns again; a cut turn resumes from its journal
  clear-needs  ID [--id QUESTION]... [--json]
                            close the seat's open questions: the named ones, or every one
A write prints what changed (or that nothing did); --json prints the node's answer instead.

${nodeFlagsHelp}  --json           print the node's answer as JSON, as it came
Exit codes: 0 done (also when nothing changed); 1 refused (the answer's error code is printed: an unknown
seat is 404 not_found) or unreachable; 2 bad flags.
`;

/** ID arguments each verb takes. */
const takes: Readonly<Record<string, number>> = {
  list: 0,
  show: 1,
  activity: 0,
  pause: 1,
  resume: 1,
  'clear-needs': 1,
};

/** Each verb's own flags, beside --url, --config, --timeout and --help. */
const agentsVerbFlags: Readonly<Record<string, readonly string[]>> = {
  list: ['json'],
  show: ['json'],
  activity: ['days', 'json'],
  pause: ['reason', 'stop-running', 'json'],
  resume: ['reason', 'json'],
  'clear-needs': ['id', 'json'],
};

export async function runAgents(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values, positionals } = parseNodeArgs(
    args,
    {
      json: { type: 'boolean' },
      days: { type: 'string' },
      reason: { type: 'string' },
      'stop-running': { type: 'boolean' },
      id: { type: 'string', multiple: true },
    },
    'agents',
    agentsVerbFlags,
  );
  // The seats are what an operator asks about most: `svc agents` alone lists them.
  const [verb = 'list', ...rest] = positionals;
  const exit = helpExit(agentsHelp, values.help, verb, out, err);
  if (exit !== null) return exit;
  // Own keys only: `constructor` is no verb (it fell through to clear-needs).
  const wanted = Object.hasOwn(takes, verb) ? takes[verb] : undefined;
  if (wanted === undefined) throw unknownVerb('agents', verb, Object.keys(takes));
  refuseOtherVerbsFlags('agents', verb, values, agentsVerbFlags);
  if (rest.length < wanted) throw new UsageError(`svc agents ${verb} needs ID (a seat handle or role name)`);
  if (rest.length > wanted) throw new UsageError(`unexpected arguments: ${rest.slice(wanted).join(' ')}`);
  // The route clamps a value outside the range: refused here instead of answering another window.
  const days = intFlag('--days', values.days, activityDays);
  if (values.id?.some((id) => id === '')) throw new UsageError('--id needs a question id');
  shapeFlag(
    '--reason',
    values.reason,
    (reason) => reason.length <= SEAT_REASON_MAX,
    `at most ${SEAT_REASON_MAX} characters`,
  );
  const ctx = await nodeContext(values, env, out, err);
  const seat = rest[0] === undefined ? '' : pathSegment(rest[0]);
  // The routes' hints name the route a reader of the API would ask; here it is this command.
  const rewrite = (said: string): string => said.replaceAll('GET /agents', 'svc agents');
  const call = async (method: string, path: string, show: (text: string) => string, body?: unknown) => {
    const text = await answerText('agents', ctx, method, path, body, rewrite);
    if (text === null) return 1;
    if (values.json) {
      out.write(text.endsWith('\n') ? text : `${text}\n`);
      return 0;
    }
    try {
      out.write(show(text));
    } catch (error) {
      if (!(error instanceof AnswerShapeError)) throw error;
      err.write(`svc agents: ${error.message}\n`);
      return 1;
    }
    return 0;
  };
  switch (verb) {
    case 'list':
      return call('GET', '/agents', agentsTable);
    case 'show':
      return call('GET', `/agents/${seat}`, agentDetail);
    case 'activity':
      return call('GET', `/agents/activity${queryOf({ days })}`, activityTable);
    case 'pause':
      return call('POST', `/agents/${seat}/pause`, (text) => pauseChange(text, 'pause'), {
        ...(values.reason === undefined ? {} : { reason: values.reason }),
        ...(values['stop-running'] ? { stop_running: true } : {}),
      });
    case 'resume':
      return call('POST', `/agents/${seat}/resume`, (text) => pauseChange(text, 'resume'), {
        ...(values.reason === undefined ? {} : { reason: values.reason }),
      });
    default: {
      const named = values.id ?? [];
      return call('POST', `/agents/${seat}/needs/clear`, (text) => clearChange(text, named), {
        ...(named.length === 0 ? {} : { ids: named }),
      });
    }
  }
}
