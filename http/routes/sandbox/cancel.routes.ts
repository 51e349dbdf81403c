/**
 * `POST /sandbox-runs/{id}/cancel` (JSON `reason`, optional): an operator stops a live coding run. The
 * command goes to the node that watches the run, which stops its process tree and records it `cancelled`
 * (ops/sandboxes.md). Idempotent: a cancelled run answers 200 again with `changed: false`. An unknown run is
 * 404 `not_found`; one that ended done or failed, 409 `run_ended`.
 */
import { NoRespondersError, RequestTimeoutError, sendCommand, type Bus } from '../../../bus/index.js';
import { Commands, SandboxCancelBody, type SandboxCancelReply } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { jsonBody } from '../../json-body.js';
import { quoted } from '../work/work.params.js';
import type { RouteDef } from '../../types.js';

export interface SandboxCancelDeps {
  readonly bus: Bus;
  /** The node watching the run (it launched it), or null when no run has that id. */
  nodeOf(sandboxId: string): string | null;
}

export function sandboxCancelRoutes(deps: SandboxCancelDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/sandbox-runs/:id/cancel',
      access: 'guarded',
      query: [],
      maxBodyBytes: 16 * 1024,
      async handler(req) {
        const body = jsonBody(req, SandboxCancelBody, {
          detail: 'Expected {reason?: string}.',
          hint: 'Send `reason` as a string of at most 500 characters, or no body.',
        });
        const id = req.params['id'] ?? '';
        const node = deps.nodeOf(id);
        const unknown = (detail: string) =>
          new ApiError('not_found', { detail, hint: 'GET /sandbox-runs lists the coding runs.' });
        // An id is quoted cut, as on every route: a refusal does not echo kilobytes back.
        if (node === null) throw unknown(`No coding run ${quoted(id)}.`);
        let reply: SandboxCancelReply;
        try {
          reply = await sendCommand(deps.bus, Commands.sandbox.cancelAt(node), {
            sandbox_id: id,
            by: req.actor?.id ?? 'anonymous',
            reason: body.reason,
          });
        } catch (error) {
          if (error instanceof NoRespondersError || error instanceof RequestTimeoutError)
            throw new ApiError('outcome_unknown', {
              detail: `Node ${node}, which watches coding run ${id}, did not answer.`,
              hint: 'Read GET /sandbox-runs; cancel again once that node runs.',
            });
          throw error;
        }
        if (!reply.ok)
          throw reply.error === 'ended'
            ? new ApiError('run_ended', { detail: reply.message })
            : unknown(reply.message);
        return { status: 200, body: { run: reply.run, changed: reply.changed } };
      },
    },
  ];
}
