/**
 * The operator surface (spec "Other resources" `/operator/mcp`, `/operator/act/{tool}`; ops/operator.md):
 * the company's knowledge base (and work tracker, when its tools join the catalogue) for an assistant,
 * acting as the person the token is bound to. Always guarded (the guard knows `/operator/`); absent
 * when no native backend runs (the wiring then registers none of these).
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, isOpId } from '../../../schema/index.js';
import { ApiError, bodyProblems, wholeBodyProblem } from '../../api-error.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import { actTools, operatorPerson, type OperatorDeps } from './operator.caller.js';
import { mcpRoute } from './operator.mcp.js';

/** A tool's refusal as its catalogued error (a code outside the catalogue reads as `bad_params`). */
function refused(error: string, detail: string): never {
  const code = ErrorCode.safeParse(error);
  throw new ApiError(code.success ? code.data : 'bad_params', { detail });
}

async function act(deps: OperatorDeps, req: ApiRequest): Promise<ApiReply> {
  const person = operatorPerson(deps, req.actor);
  const name = req.params['tool'] ?? '';
  const tool = actTools(deps).find((t) => t.name === name);
  if (!tool)
    throw new ApiError('unknown_tool', {
      detail: `No write tool ${name}: this surface acts with ${
        actTools(deps)
          .map((t) => t.name)
          .join(', ') || 'none'
      }.`,
    });
  let raw: unknown = {};
  if (req.body.length > 0) {
    try {
      raw = JSON.parse(req.body.toString('utf8'));
    } catch {
      throw new ApiError('invalid_body', { extra: { problems: wholeBodyProblem('expected a JSON object') } });
    }
  }
  const opId = (raw as { op_id?: unknown } | null)?.op_id;
  if (opId !== undefined && (typeof opId !== 'string' || !isOpId(opId)))
    throw new ApiError('op_id_invalid', { detail: "The body's `op_id` is outside the grammar." });
  const parsed = tool.args.safeParse(raw);
  if (!parsed.success)
    throw new ApiError('invalid_body', {
      detail: `The arguments do not fit ${tool.name} (see \`problems\`).`,
      extra: { problems: bodyProblems(parsed.error.issues) },
    });
  const result = await tool.run(person, parsed.data, {
    opId: typeof opId === 'string' ? opId : randomUUID(),
  });
  if (!result.ok) refused(result.error, result.detail);
  return { status: 200, body: { tool: tool.name, acted_as: person, result: result.value } };
}

export function operatorRoutes(deps: OperatorDeps): RouteDef[] {
  const mcp = (req: ApiRequest) => mcpRoute(deps, req);
  return [
    { method: 'GET', pattern: '/operator/mcp', access: 'guarded', handler: mcp },
    { method: 'POST', pattern: '/operator/mcp', access: 'guarded', handler: mcp },
    { method: 'DELETE', pattern: '/operator/mcp', access: 'guarded', handler: mcp },
    { method: 'POST', pattern: '/operator/act/:tool', access: 'guarded', handler: (req) => act(deps, req) },
  ];
}

export { actTools, type OperatorDeps } from './operator.caller.js';
