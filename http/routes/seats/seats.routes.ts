/**
 * `POST /agents/{id}/pause` (JSON `reason`, `stop_running`) and `POST /agents/{id}/resume`: guarded
 * operator routes that send `svc.cmd.seats.pause|resume` to the seat's host and answer with the seat's
 * `paused` state. A seat no node runs (unknown, or a human seat) is 404 `not_found`.
 */
import { NoRespondersError, RequestTimeoutError, Subjects, type Bus } from '../../../bus/index.js';
import { PauseBody, ResumeBody, SeatCommandReply, SeatCommandVerb } from '../../../schema/index.js';
import { ApiError, bodyProblems, wholeBodyProblem } from '../../api-error.js';
import type { ApiRequest, RouteDef } from '../../types.js';

export interface SeatRouteDeps {
  readonly bus: Bus;
  readonly commandTimeoutMs?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function body(req: ApiRequest): unknown {
  if (req.body.length === 0) return {};
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new ApiError('invalid_body', {
      detail: 'The body is not JSON.',
      hint: 'Send a JSON object or nothing.',
      extra: { problems: wholeBodyProblem('expected a JSON object') },
    });
  }
}

async function send(deps: SeatRouteDeps, verb: string, command: unknown) {
  let data: Uint8Array;
  try {
    const answer = await deps.bus.request(
      Subjects.command('seats', verb),
      encoder.encode(JSON.stringify(command)),
      {
        timeoutMs: deps.commandTimeoutMs ?? 10_000,
      },
    );
    data = answer.data;
  } catch (error) {
    if (error instanceof NoRespondersError || error instanceof RequestTimeoutError)
      throw new ApiError('not_found', {
        detail: 'No node runs agent seats right now.',
        hint: 'Start a node with the seats role (node.roles), or wait until one applies the active revision.',
      });
    throw error;
  }
  const reply = SeatCommandReply.parse(JSON.parse(decoder.decode(data)));
  if (!reply.ok)
    throw new ApiError(reply.error, {
      detail: reply.detail,
      ...(reply.error === 'not_found' && {
        hint: 'Only a running agent seat can be paused (a human seat never runs); GET /agents lists them.',
      }),
    });
  return { status: 200, body: { id: reply.handle, paused: reply.paused } };
}

export function seatRoutes(deps: SeatRouteDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/agents/:id/pause',
      access: 'guarded',
      maxBodyBytes: 16 * 1024,
      async handler(req) {
        const parsed = PauseBody.safeParse(body(req));
        if (!parsed.success)
          throw new ApiError('invalid_body', {
            detail: 'Expected {reason?: string, stop_running?: boolean}.',
            hint: 'Send `reason` as a string and `stop_running` as a boolean.',
            extra: { problems: bodyProblems(parsed.error.issues) },
          });
        return send(deps, SeatCommandVerb.Pause, {
          seat: req.params['id'] ?? '',
          by: req.actor?.id ?? 'anonymous',
          ...parsed.data,
        });
      },
    },
    {
      method: 'POST',
      pattern: '/agents/:id/resume',
      access: 'guarded',
      maxBodyBytes: 16 * 1024,
      async handler(req) {
        const parsed = ResumeBody.safeParse(body(req));
        if (!parsed.success)
          throw new ApiError('invalid_body', {
            detail: 'Expected {reason?: string}.',
            hint: 'Send `reason` as a string.',
            extra: { problems: bodyProblems(parsed.error.issues) },
          });
        return send(deps, SeatCommandVerb.Resume, {
          seat: req.params['id'] ?? '',
          by: req.actor?.id ?? 'anonymous',
          ...parsed.data,
        });
      },
    },
  ];
}
