/**
 * Serves a tool surface over MCP streamable HTTP from the gateway's buffered request/reply: each request
 * gets a stateless server and transport of the MCP SDK (web-standard flavour, JSON responses), so no
 * session lives between requests and any node can answer. Reusable by any route that serves tools over
 * MCP (`/mcp/{token}` today).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolEntry, ToolResult } from '../schema/index.js';
import { mcpServerSdk, type McpServerSdk } from './mcp-sdk.js';
import type { ApiReply } from './reply.js';
import type { ApiRequest } from './types.js';

export interface McpSurface {
  readonly name: string;
  readonly version: string;
  tools(): ToolEntry[];
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

const inputSchemaOf = (entry: ToolEntry): { type: 'object'; [k: string]: unknown } => ({
  ...entry.input_schema,
  type: 'object',
});

function serverFor(sdk: McpServerSdk, surface: McpSurface): Server {
  const { Server, CallToolRequestSchema, ListToolsRequestSchema } = sdk;
  const server = new Server(
    { name: surface.name, version: surface.version },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: surface.tools().map((entry) => ({
      name: entry.name,
      description: entry.description,
      inputSchema: inputSchemaOf(entry),
      annotations: entry.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const offered = surface.tools().some((t) => t.name === request.params.name);
    if (!offered)
      return { content: [{ type: 'text', text: `no tool named ${request.params.name}` }], isError: true };
    const result = await surface.call(request.params.name, request.params.arguments ?? {}, extra.signal);
    return { content: result.content, isError: result.is_error };
  });
  return server;
}

/** An issue of the SDK's `tools/call` schema in words an agent can act on (`params.arguments: ...`). */
const describeIssue = (issue: { path: PropertyKey[]; message: string }): string =>
  `${issue.path.map(String).join('.') || 'the request'}: ${issue.message
    .replace(/^Invalid input: /, '')
    .replace('expected record', 'expected an object')}`;

/**
 * A `tools/call` whose params do not fit (no tool name, `arguments` not an object) is answered -32602
 * (invalid params) before the server sees it: the SDK parses them ahead of our handler, and its parse
 * failure would leave as -32603 (internal error), as if the bridge had broken.
 */
function refuseInvalidCalls(sdk: McpServerSdk, transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (sdk.isJSONRPCRequest(message) && message.method === 'tools/call') {
      const parsed = sdk.CallToolRequestSchema.safeParse(message);
      if (!parsed.success) {
        const detail = parsed.error.issues.map(describeIssue).join('; ');
        const error = { code: sdk.InvalidParams, message: `Invalid params for tools/call: ${detail}` };
        transport.send({ jsonrpc: '2.0', id: message.id, error }).catch(() => undefined);
        return;
      }
    }
    deliver?.(message, extra);
  };
}

/**
 * Answers one MCP request (POST or DELETE) for `surface`. No route serves GET: MCP streamable HTTP lets a
 * server answer it 405 when it offers no server-initiated stream, and a stateless, buffered endpoint has
 * none (the SDK would hold the stream open for ever).
 */
export async function serveMcp(req: ApiRequest, surface: McpSurface): Promise<ApiReply> {
  const sdk = await mcpServerSdk();
  const server = serverFor(sdk, surface);
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  refuseInvalidCalls(sdk, transport);
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) headers.set(name, value);
    const hasBody = req.method === 'POST' && req.body.length > 0;
    const request = new Request(`http://bridge${req.path}`, {
      method: req.method,
      headers,
      ...(hasBody ? { body: req.body } : {}),
    });
    let parsedBody: unknown;
    if (hasBody) {
      try {
        parsedBody = JSON.parse(req.body.toString('utf8'));
      } catch {
        parsedBody = undefined;
      }
    }
    const response = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    const body = Buffer.from(await response.arrayBuffer());
    return { status: response.status, headers: out, body };
  } finally {
    await transport.close();
    await server.close();
  }
}
