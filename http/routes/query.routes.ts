/**
 * `GET /query/{what}?a=b`: the generic named read the route adapters and the socket's query channel
 * share. Each question is registered by the subsystem that can answer it; an unregistered one is 404
 * `unknown_query`.
 */
import { ApiError } from '../api-error.js';
import type { ApiRequest, RouteDef } from '../types.js';

export interface Question {
  /** Questions about guarded resources (configuration, fleet) need a token even when reads are open. */
  readonly guarded: boolean;
  answer(params: URLSearchParams, req: ApiRequest): unknown;
}

export type QuestionRegistry = ReadonlyMap<string, Question>;

export function queryRoutes(questions: QuestionRegistry): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/query/:what',
      handler: (req) => {
        const what = req.params['what'] ?? '';
        const question = questions.get(what);
        if (!question)
          throw new ApiError('unknown_query', { detail: `no source answers "${what}" on this node` });
        if (question.guarded && req.actor === null) {
          throw new ApiError('invalid_token', { detail: `the question ${what} needs an operator token` });
        }
        return { status: 200, body: question.answer(req.query, req) };
      },
    },
  ];
}
