/**
 * `GET /query/{what}?a=b`: the generic named read the route adapters and the socket's query channel
 * share. Each question is one answer function registered by the subsystem that can answer
 * it; an unregistered one is 404 `unknown_query` naming the registered ones, and `GET /query` lists them with
 * their parameters. Answers may be async and may throw an `ApiError` or a
 * projection's `QueryError` (rendered from the same catalogue).
 */
import type { Logger } from 'pino';
import { QueryError } from '../../projections/index.js';
import { ApiError } from '../api-error.js';
import { unreadParamError } from '../declared-params.js';
import type { Actor, ApiRequest, RouteDef } from '../types.js';
import { questionParams } from './query.catalogue.js';
import { refuseRepeats } from './single.param.js';

/** Who asks: an HTTP request satisfies it, and so does a socket's query frame. */
export interface QueryContext {
  readonly actor: Actor | null;
  readonly log: Logger;
}

export interface Question {
  /** Questions about guarded resources (configuration, fleet) need a token even when reads are open. */
  readonly guarded: boolean;
  answer(params: URLSearchParams, ctx: QueryContext): unknown;
  /** The parameters it reads, when `query.catalogue.ts` does not describe them. */
  readonly params?: readonly string[];
  /**
   * Parameters it reads a list from (several values); any other given twice is refused before it answers,
   * since answers read one value with `get` and would keep the first. `'own'`: it runs a route that
   * refuses repeats and parameters it does not read itself, knowing its own lists.
   */
  readonly repeatable?: readonly string[] | 'own';
}

/** One row of `GET /query`: `params` is null for a question nobody described. */
export interface QuestionListing {
  readonly name: string;
  readonly guarded: boolean;
  readonly params: ReadonlyArray<{ readonly name: string; readonly description: string }> | null;
}

export type QuestionRegistry = ReadonlyMap<string, Question>;

/** A projection's refusal as the catalogued API error; anything else is passed through. */
export function asApiError(err: unknown): unknown {
  if (err instanceof QueryError)
    return new ApiError(err.code, { detail: err.detail, ...(err.hint ? { hint: err.hint } : {}) });
  return err;
}

/** The parameters `what` reads: its own `params`, else the catalogue's; null when nobody described them. */
function paramsOf(what: string, question: Question): readonly string[] | null {
  if (question.params) return question.params;
  return Object.hasOwn(questionParams, what) ? Object.keys(questionParams[what] ?? {}) : null;
}

/** Every question this node answers, by name, with the parameters each reads. */
export function listQuestions(questions: QuestionRegistry): QuestionListing[] {
  return [...questions]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, question]) => {
      const described = Object.hasOwn(questionParams, name) ? questionParams[name] : undefined;
      const params = question.params
        ? question.params.map((param) => ({ name: param, description: described?.[param] ?? '' }))
        : described
          ? Object.entries(described).map(([param, description]) => ({ name: param, description }))
          : null;
      return { name, guarded: question.guarded, params };
    });
}

/**
 * Asks one question as the HTTP surface does: unknown → 404 `unknown_query`, guarded without a token → 401,
 * a parameter it does not read (named, with the one meant for a near miss: `events?seet=` is no whole feed)
 * or one given twice that it reads one value of → 400 `bad_params`, the code every question answers a
 * bad parameter with (spec error table: "bad parameter on `/work/projects/{key}` and similar"; `invalid_query`
 * is `dry_run`'s, a write's), so a caller meets one code whichever subsystem answers.
 */
export async function ask(
  questions: QuestionRegistry,
  what: string,
  params: URLSearchParams,
  ctx: QueryContext,
): Promise<unknown> {
  const question = questions.get(what);
  if (!question)
    throw new ApiError('unknown_query', {
      detail: `no source answers "${what}" on this node`,
      // The names are not secret (guarded answers stay guarded); a typo is fixed from the hint alone.
      hint: `Questions here: ${[...questions.keys()].sort().join(', ')}. GET /query lists their parameters.`,
    });
  if (question.guarded && ctx.actor === null)
    throw new ApiError('invalid_token', { detail: `the question ${what} needs an operator token` });
  if (question.repeatable !== 'own') {
    const known = paramsOf(what, question);
    const unread = known && unreadParamError(params, what, known);
    if (unread) throw unread;
    refuseRepeats(params, 'bad_params', question.repeatable ?? []);
  }
  try {
    return await question.answer(params, ctx);
  } catch (err) {
    throw asApiError(err);
  }
}

export function queryRoutes(questions: QuestionRegistry): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/query',
      query: [],
      handler: () => ({ status: 200, body: { questions: listQuestions(questions) } }),
    },
    {
      method: 'GET',
      pattern: '/query/:what',
      // Its parameters are the question's: `ask` refuses any other, naming the question.
      handler: async (req: ApiRequest) => ({
        status: 200,
        body: await ask(questions, req.params['what'] ?? '', req.query, req),
      }),
    },
  ];
}
