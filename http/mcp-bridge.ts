/**
 * Serves a tool surface over MCP streamable HTTP from the gateway's buffered request/reply: each request
 * gets a stateless server and transport of the MCP SDK (web-standard flavour, JSON responses), so no
 * session lives between requests and any node can answer. Reusable by any route that serves tools over
 * MCP (`/mcp/{token}` today).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ToolEntry, ToolResult } from '../schema/index.js';
import { answerMcp } from './mcp-jsonrpc.js';
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
    // The caller's text, of any length: quoted cut, as every quoted value is.
    const named = request.params.name.slice(0, 100);
    if (!offered) return { content: [{ type: 'text', text: `no tool named ${named}` }], isError: true };
    const result = await surface.call(request.params.name, request.params.arguments ?? {}, extra.signal);
    return { content: result.content, isError: result.is_error };
  });
  return server;
}

/**
 * Answers one MCP request (POST or DELETE) for `surface`. No route serves GET: MCP streamable HTTP lets a
 * server answer it 405 when it offers no server-initiated stream, and a stateless, buffered endpoint has
 * none (the SDK would hold the stream open for ever).
 */
export async function serveMcp(req: ApiRequest, surface: McpSurface): Promise<ApiReply> {
  const sdk = await mcpServerSdk();
  return answerMcp(sdk, serverFor(sdk, surface), req);
}
