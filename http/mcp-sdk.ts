/**
 * The MCP SDK's server half, loaded on the first MCP request rather than at the node's start: its
 * protocol schemas are a tenth of a node's start, which a node never asked over MCP never needs.
 */
const load = async () => {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    InitializeRequestSchema: types.InitializeRequestSchema,
    PingRequestSchema: types.PingRequestSchema,
    JSONRPCMessageSchema: types.JSONRPCMessageSchema,
    ErrorCode: types.ErrorCode,
    isJSONRPCRequest: types.isJSONRPCRequest,
    isJSONRPCErrorResponse: types.isJSONRPCErrorResponse,
  };
};

export type McpServerSdk = Awaited<ReturnType<typeof load>>;

let loading: Promise<McpServerSdk> | null = null;

/** The SDK's server classes and request schemas, loaded once. */
export function mcpServerSdk(): Promise<McpServerSdk> {
  return (loading ??= load());
}
