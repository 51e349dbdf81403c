/**
 * Read routes over the read models (spec "Read routes"): agents, memory, activity, tokens, budgets,
 * org, tools and sandbox runs. Each route asks the `/query/{what}` question of the same name from the
 * registry the socket asks too, so REST and the socket agree by construction, scattered questions
 * (`agent`, http/scatter.merges.ts) included, and each declares the question's parameters, refusing any other.
 */
import type { ReadModels } from '../../../projections/index.js';
import { ApiError } from '../../api-error.js';
import type { RouteDef } from '../../types.js';
import { adaptedQuery } from '../query.catalogue.js';
import { ask, type Question, type QuestionRegistry } from '../query.routes.js';
import { quoted } from '../work/work.params.js';

/** What the routes read: the hub's answers (an interface so a test can hand in the real hub). */
export type ReadSource = Pick<
  ReadModels,
  | 'agentList'
  | 'agent'
  | 'activity'
  | 'memoryOf'
  | 'episode'
  | 'tokenBreakdown'
  | 'tokenSeries'
  | 'budgets'
  | 'org'
  | 'tools'
  | 'sandboxRuns'
>;

/** Answers read only their parameters: an HTTP request and a socket query frame ask alike. */
type Answer = (params: URLSearchParams) => unknown;

function unknownAgent(id: string): never {
  throw new ApiError('not_found', {
    // A long id is cut, as the work routes cut theirs: a refusal does not echo kilobytes back.
    detail: `no agent seat ${quoted(id)}`,
    hint: 'Use a seat handle or role name from GET /agents (human seats have no agent view).',
  });
}

/** A parameter naming what the question reads; absent or blank is a bad parameter, not an unknown seat. */
function named(params: URLSearchParams, name: string, what: string): string {
  const value = params.get(name) ?? '';
  if (value === '')
    throw new ApiError('bad_params', {
      detail: `${what} needs ${name}`,
      hint: 'Use a seat handle from GET /agents, and an episode id from its memory view.',
    });
  return value;
}

/** Answers by question name; REST params (path) are passed as query parameters of the same name. */
export function readAnswers(source: ReadSource): Map<string, Answer> {
  return new Map<string, Answer>([
    ['agents', () => source.agentList()],
    [
      'agent',
      (p) => {
        const id = named(p, 'id', 'agent');
        return source.agent(id) ?? unknownAgent(id);
      },
    ],
    ['agent_activity', (p) => source.activity(p)],
    [
      'memory',
      async (p) => {
        const id = named(p, 'id', 'memory');
        return (await source.memoryOf(id)) ?? unknownAgent(id);
      },
    ],
    [
      'episode',
      (p) => {
        const id = named(p, 'id', 'episode');
        const episode = named(p, 'episode', 'episode');
        const found = source.episode(id, episode);
        if (found === undefined) unknownAgent(id);
        if (found === null)
          throw new ApiError('not_found', {
            detail: `seat ${quoted(id)} has no episode ${quoted(episode)}`,
            hint: 'List episodes with GET /agents/{id}/memory.',
          });
        return found;
      },
    ],
    ['tokens_breakdown', (p) => source.tokenBreakdown(p)],
    [
      'tokens_series',
      (p) => {
        const answer = source.tokenSeries(p);
        if ('invalid' in answer) throw new ApiError('bad_params', { detail: answer.invalid });
        return answer;
      },
    ],
    ['budgets', () => source.budgets()],
    ['org', () => source.org()],
    ['tools', () => source.tools()],
    ['sandbox_runs', () => source.sandboxRuns()],
  ]);
}

/** The same answers as `/query/{what}` questions (reads: guarded only when anonymous reads are off). */
export function readQuestions(source: ReadSource): Map<string, Question> {
  return new Map(
    [...readAnswers(source)].map(([name, answer]) => [name, { guarded: false, answer } satisfies Question]),
  );
}

const routes: ReadonlyArray<readonly [string, string]> = [
  ['/agents', 'agents'],
  ['/agents/activity', 'agent_activity'],
  ['/agents/:id', 'agent'],
  ['/agents/:id/memory', 'memory'],
  ['/agents/:id/memory/episodes/:episode', 'episode'],
  ['/tokens/breakdown', 'tokens_breakdown'],
  ['/tokens/series', 'tokens_series'],
  ['/budgets', 'budgets'],
  ['/org', 'org'],
  ['/tools', 'tools'],
  ['/sandbox-runs', 'sandbox_runs'],
];

/**
 * The routes over `questions`, which holds `readQuestions` (as the node's registry does, scattered or not).
 * `stale` says why the node's read models may be behind (its bus link is down), or null: sent as the
 * `Svc-Stale` header, since `/agents` is a bare list with no room for a field (ops/fleet.md).
 */
export function readModelRoutes(
  questions: QuestionRegistry,
  stale: () => string | null = () => null,
): RouteDef[] {
  return routes.map(([pattern, question]) => ({
    method: 'GET',
    pattern,
    // What the question reads but the path fills (`/agents/:id`): any other is 400 `bad_params`.
    query: adaptedQuery(
      question,
      [...pattern.matchAll(/:(\w+)/g)].map((m) => m[1] ?? ''),
    ),
    handler: async (req) => {
      const params = new URLSearchParams(req.query);
      for (const [k, v] of Object.entries(req.params)) params.set(k, v);
      const body = await ask(questions, question, params, req);
      const why = stale();
      return { status: 200, body, ...(why === null ? {} : { headers: { 'svc-stale': why } }) };
    },
  }));
}
