/**
 * `/operator/mcp`: the operator catalogue over MCP's streamable HTTP, bridged from the gateway's
 * request and reply to the SDK's web-standard transport. Stateless: each POST gets a fresh server and
 * transport bound to the caller, answered as one JSON body (no session, no server-initiated stream), so
 * GET answers 405 (the SDK client then reads every answer on its POST) and DELETE has nothing to end.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  serviceToolInputSchema,
  type ServiceCaller,
  type ServiceTool,
  type ServiceToolResult,
} from '../../../schema/index.js';
import { answerMcp } from '../../mcp-jsonrpc.js';
import { mcpServerSdk, type McpServerSdk } from '../../mcp-sdk.js';
import { opIdValueProblem } from '../op-id.param.js';
import type { ApiReply, ApiRequest } from '../../types.js';
import { operatorPerson, type OperatorDeps } from './operator.caller.js';

const SERVER_INFO = { name: 'svc-operator', version: '1' };

function mcpServer(sdk: McpServerSdk, tools: readonly ServiceTool[], person: ServiceCaller): Server {
  const { Server, CallToolRequestSchema, ListToolsRequestSchema } = sdk;
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: serviceToolInputSchema(tool) as { type: 'object' },
      annotations: { ...tool.annotations },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((t) => t.name === request.params.name);
    const text = (value: string, isError: boolean) => ({
      content: [{ type: 'text' as const, text: value }],
      isError,
    });
    if (!tool) return text(`unknown_tool: no tool ${request.params.name.slice(0, 100)}`, true);
    // The retry handle's own refusal, as `/operator/act` answers it (spec: 400 `op_id_invalid`).
    const opId = request.params.arguments?.['op_id'];
    const opIdProblem = opId === undefined ? null : opIdValueProblem(opId);
    if (opIdProblem !== null) return text(`op_id_invalid: the \`op_id\` argument: ${opIdProblem}`, true);
    const refusal = (result: Extract<ServiceToolResult, { ok: false }>) =>
      text(
        `${result.error}: ${result.detail}${
          result.problems?.length ? `\nproblems: ${JSON.stringify(result.problems)}` : ''
        }`,
        true,
      );
    // The tool's own words for arguments its schema would refuse as a bad shape, as `/operator/act` gives them.
    const given = request.params.arguments ?? {};
    const checked = tool.precheck?.(given) ?? { args: given };
    if ('refused' in checked) return refusal(checked.refused);
    const parsed = tool.args.safeParse(checked.args);
    if (!parsed.success)
      return text(
        `invalid_body: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`,
        true,
      );
    const result = await tool.run(person, parsed.data, { opId: randomUUID() });
    return result.ok
      ? { ...text(JSON.stringify(result.value, null, 2), false), structuredContent: { result: result.value } }
      : refusal(result);
  });
  return server;
}

export async function mcpRoute(deps: OperatorDeps, req: ApiRequest): Promise<ApiReply> {
  const person = operatorPerson(deps, req.actor);
  const sdk = await mcpServerSdk();
  return answerMcp(sdk, mcpServer(sdk, deps.tools(), person), req);
}
