/**
 * The operator surface (spec "Other resources" `/operator/mcp`, `/operator/act/{tool}`; ops/operator.md):
 * the company's knowledge base (and work tracker, when its tools join the catalogue) for an assistant,
 * acting as the person the token is bound to. Always guarded (the guard knows `/operator/`); absent
 * when no native backend runs (the wiring then registers none of these).
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, type ServiceToolResult } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { fitBody, jsonValue } from '../../json-body.js';
import { bodyOpId } from '../op-id.param.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import { actTools, operatorPerson, type OperatorDeps } from './operator.caller.js';
import { mcpRoute } from './operator.mcp.js';

/**
 * A tool's refusal as its catalogued error (a code outside the catalogue reads as `bad_params`), with
 * its problems in the spec's shape (a `validation_error`'s hint sends the caller to them).
 */
function refused(refusal: Extract<ServiceToolResult, { ok: false }>): never {
  const code = ErrorCode.safeParse(refusal.error);
  const problems = (refusal.problems ?? []).map((p) => ({
    path: p.path,
    segments: p.path === '' ? [] : p.path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
    kind: p.kind ?? 'invalid',
    message: p.message,
  }));
  throw new ApiError(code.success ? code.data : 'bad_params', {
    detail: refusal.detail,
    ...(problems.length > 0 ? { extra: { problems } } : {}),
  });
}

async function act(deps: OperatorDeps, req: ApiRequest): Promise<ApiReply> {
  const person = operatorPerson(deps, req.actor);
  const name = req.params['tool'] ?? '';
  const tool = actTools(deps).find((t) => t.name === name);
  if (!tool)
    throw new ApiError('unknown_tool', {
      detail: `No write tool ${name.slice(0, 100)}: this surface acts with ${
        actTools(deps)
          .map((t) => t.name)
          .join(', ') || 'none'
      }.`,
    });
  const raw = jsonValue(req);
  const opId = bodyOpId(raw);
  // The tool's own words for arguments its schema would refuse as a bad shape (work_update's null title).
  const checked =
    tool.precheck && typeof raw === 'object' && raw !== null && !Array.isArray(raw)
      ? tool.precheck(raw as Record<string, unknown>)
      : { args: raw };
  if ('refused' in checked) refused(checked.refused);
  const args = fitBody(checked.args, tool.args, {
    detail: `The arguments do not fit ${tool.name} (see \`problems\`).`,
  });
  const result = await tool.run(person, args, {
    opId: opId ?? randomUUID(),
  });
  if (!result.ok) refused(result);
  return { status: 200, body: { tool: tool.name, acted_as: person, result: result.value } };
}

export function operatorRoutes(deps: OperatorDeps): RouteDef[] {
  const mcp = (req: ApiRequest) => mcpRoute(deps, req);
  return [
    // Stateless: no server-initiated stream, so no GET (405 with `Allow: POST, DELETE`, HEAD alike).
    { method: 'POST', pattern: '/operator/mcp', access: 'guarded', handler: mcp },
    { method: 'DELETE', pattern: '/operator/mcp', access: 'guarded', handler: mcp },
    {
      method: 'POST',
      pattern: '/operator/act/:tool',
      access: 'guarded',
      // The arguments and `op_id` come in the body; a query would be passed over as if taken.
      query: [],
      handler: (req) => act(deps, req),
    },
  ];
}

export { actTools, type OperatorDeps } from './operator.caller.js';
