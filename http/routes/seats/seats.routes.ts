/**
 * `POST /agents/{id}/pause` (JSON `reason`, `stop_running`) and `POST /agents/{id}/resume`: guarded
 * operator routes that send `Commands.seats.pause|resume` to the seat's host and answer with the seat's
 * `paused` state in force and whether the command `changed` it (a second pause changes nothing unless it
 * adds `stop_running` to a running turn). `POST /agents/{id}/needs/clear` (JSON `ids`, optional: none
 * clears every open question) closes the seat's open questions and answers what it `cleared` and what
 * stays `open`. A seat not in the active document (unknown, or a human seat) is 404 `not_found`; an agent
 * seat of it that no node answers for right now (moving between nodes, or no seats node runs) is 503
 * `seat_unavailable` with `Retry-After`, and one whose holder did not answer in time 503 `outcome_unknown`.
 */
import { NoRespondersError, RequestTimeoutError, sendCommand, type Bus } from '../../../bus/index.js';
import {
  Commands,
  NeedsClearBody,
  PauseBody,
  ResumeBody,
  type Command,
  type SeatCommandReply,
  type SeatNeedsReply,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { jsonBody } from '../../json-body.js';
import { seatOutcomeHint } from '../../outcome-unknown.js';
import { quoted } from '../work/work.params.js';
import type { RouteDef } from '../../types.js';

export interface SeatRouteDeps {
  readonly bus: Bus;
  readonly commandTimeoutMs?: number;
  /**
   * The handle of the agent seat of the active document that `id` (a handle, a seat name or the seat's
   * agent_id UUID) names, or null: a seat no node answers for is then a passing state (503), not an unknown
   * one (404), and the command names it by handle (a seat host knows no UUID). Absent: every such seat is 404.
   */
  readonly agentHandle?: (id: string) => string | null;
}

/** Refuses for an agent seat of the document that no node answers for right now: it is moving or waiting. */
const unavailable = (seat: string): ApiError =>
  new ApiError('seat_unavailable', {
    detail: `No node answers for agent seat ${seat} right now (it is moving between nodes, or no seats node runs); nothing was done.`,
  });

/** Sends a seat command; a seat no node runs (or no seats node at all) is 404 `not_found`, or 503 for an agent seat. */
async function ask<Input extends { seat: string }, Reply extends SeatCommandReply | SeatNeedsReply>(
  deps: SeatRouteDeps,
  cmd: Command<unknown, Reply, Input>,
  body: Input,
  what: string,
): Promise<Extract<Reply, { ok: true }>> {
  let reply: Reply;
  const handle = deps.agentHandle?.(body.seat) ?? null;
  const inDocument = handle !== null;
  const seat = handle ?? body.seat;
  try {
    reply = await sendCommand(deps.bus, cmd, { ...body, seat }, { timeoutMs: deps.commandTimeoutMs });
  } catch (error) {
    if (inDocument && error instanceof NoRespondersError) throw unavailable(seat);
    // The holder may have taken it and not answered: the outcome is not known.
    if (inDocument && error instanceof RequestTimeoutError)
      throw new ApiError('outcome_unknown', { hint: seatOutcomeHint, cause: error });
    if (error instanceof NoRespondersError || error instanceof RequestTimeoutError)
      throw new ApiError('not_found', {
        detail: 'No node runs agent seats right now.',
        hint: 'Start a node with the seats role (node.roles), or wait until one applies the active revision.',
      });
    throw error;
  }
  if (!reply.ok && reply.error === 'not_found' && inDocument) throw unavailable(seat);
  if (!reply.ok)
    throw new ApiError(reply.error, {
      // Worded here for an unknown seat: the id is cut, as the work routes cut theirs (no kilobytes echoed).
      detail: reply.error === 'not_found' ? `no agent seat ${quoted(seat)} runs in the fleet` : reply.detail,
      ...(reply.error === 'not_found' && {
        hint: `Only a running agent seat ${what} (a human seat never runs); GET /agents lists them.`,
      }),
    });
  return reply as Extract<Reply, { ok: true }>;
}

async function send<Input extends { seat: string }>(
  deps: SeatRouteDeps,
  cmd: Command<unknown, SeatCommandReply, Input>,
  body: Input,
) {
  const reply = await ask(deps, cmd, body, 'can be paused');
  return { status: 200, body: { id: reply.handle, paused: reply.paused, changed: reply.changed ?? true } };
}

export function seatRoutes(deps: SeatRouteDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/agents/:id/pause',
      access: 'guarded',
      query: [],
      maxBodyBytes: 16 * 1024,
      async handler(req) {
        const body = jsonBody(req, PauseBody, {
          detail: 'Expected {reason?: string, stop_running?: boolean}.',
          hint: 'Send `reason` as a string and `stop_running` as a boolean.',
        });
        return send(deps, Commands.seats.pause, {
          seat: req.params['id'] ?? '',
          by: req.actor?.id ?? 'anonymous',
          ...body,
        });
      },
    },
    {
      method: 'POST',
      pattern: '/agents/:id/resume',
      access: 'guarded',
      query: [],
      maxBodyBytes: 16 * 1024,
      async handler(req) {
        const body = jsonBody(req, ResumeBody, {
          detail: 'Expected {reason?: string}.',
          hint: 'Send `reason` as a string.',
        });
        return send(deps, Commands.seats.resume, {
          seat: req.params['id'] ?? '',
          by: req.actor?.id ?? 'anonymous',
          ...body,
        });
      },
    },
    {
      method: 'POST',
      pattern: '/agents/:id/needs/clear',
      access: 'guarded',
      query: [],
      maxBodyBytes: 16 * 1024,
      async handler(req) {
        const body = jsonBody(req, NeedsClearBody, {
          detail: 'Expected {ids?: string[]}.',
          hint: 'Send `ids` as the question ids to clear (at most 64), or nothing to clear every open one.',
        });
        const reply = await ask(
          deps,
          Commands.seats.clearNeeds,
          {
            seat: req.params['id'] ?? '',
            by: req.actor?.id ?? 'anonymous',
            ...(body.ids ? { ids: body.ids } : {}),
          },
          'has questions to clear',
        );
        return { status: 200, body: { id: reply.handle, cleared: reply.cleared, open: reply.open } };
      },
    },
  ];
}
