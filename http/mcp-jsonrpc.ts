/**
 * JSON-RPC 2.0 as the spec words it, on both MCP endpoints (`/mcp/{token}`, `/operator/mcp`). The SDK
 * parses a method's params after it took the request, so a caller's malformed params left as -32603
 * (internal error) or not at all (a whole body refused -32700 for one bad `params`), a valid JSON body
 * that is no JSON-RPC as -32700 (parse error), and our own invalid result as -32602. Here each body is
 * screened before the SDK reads it: not JSON-RPC is -32600 (in a batch, that message alone: the others
 * are answered, its error beside theirs; a request repeating an id of its batch alike), the params of a method the server answers
 * that do not fit are -32602 naming the field, an unknown method -32601; what the server then answers
 * -32602 or -32603 is its own failure, sent as a bare -32603 (the detail, which may quote internals or a
 * secret, is not sent; it is logged without the message).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpServerSdk } from './mcp-sdk.js';
import type { ApiReply } from './reply.js';
import type { ApiRequest } from './types.js';

type Id = string | number;
interface RpcError {
  readonly code: number;
  readonly message: string;
}

/** A request refused before the server: the SDK hands it on under this reserved name, answered here. */
const REFUSED = 'rpc.svc.refused';

/** An issue of an SDK schema in words a caller can act on (`params.arguments: ...`). */
const describeIssue = (issue: { path: PropertyKey[]; message: string }): string =>
  `${issue.path.map(String).join('.') || 'the request'}: ${issue.message
    .replace(/^Invalid input: /, '')
    .replace('expected record', 'expected an object')}`;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** An integer beyond 2^53 is no id: it could not be echoed as sent, and the SDK reads the body as unparsable. */
const isId = (v: unknown): v is Id => typeof v === 'string' || Number.isSafeInteger(v);
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

type Screened =
  | { readonly kind: 'pass'; readonly message: unknown }
  | { readonly kind: 'drop' }
  | { readonly kind: 'invalid'; readonly why: string };

/** One message of a body: handed on (perhaps as a refusal), dropped (a notification), or not JSON-RPC. */
function screenOne(sdk: McpServerSdk, m: unknown, refusals: Map<Id, RpcError>): Screened {
  if (!isObject(m) || m['jsonrpc'] !== '2.0') return { kind: 'invalid', why: 'not a JSON-RPC 2.0 object' };
  if (!('method' in m))
    return sdk.JSONRPCMessageSchema.safeParse(m).success
      ? { kind: 'pass', message: m }
      : { kind: 'invalid', why: 'neither a request nor a response' };
  const { method, id } = m;
  if (typeof method !== 'string') return { kind: 'invalid', why: 'method is not a string' };
  // A notification is never answered, not even with an error.
  if (!('id' in m))
    return sdk.JSONRPCMessageSchema.safeParse(m).success ? { kind: 'pass', message: m } : { kind: 'drop' };
  if (!isId(id)) return { kind: 'invalid', why: 'id is not a string or an integer' };
  const extra = Object.keys(m).find((k) => !REQUEST_KEYS.has(k));
  if (extra !== undefined) return { kind: 'invalid', why: `unknown member ${extra}` };
  const schemas = {
    initialize: sdk.InitializeRequestSchema,
    ping: sdk.PingRequestSchema,
    'tools/list': sdk.ListToolsRequestSchema,
    'tools/call': sdk.CallToolRequestSchema,
  };
  // Own keys only: `constructor`, `__proto__` or `toString` would find a member of every object.
  const schema = Object.hasOwn(schemas, method) ? schemas[method as keyof typeof schemas] : undefined;
  let error: RpcError | null = null;
  if (schema !== undefined) {
    const parsed = schema.safeParse({ method, params: m['params'] });
    if (!parsed.success) {
      const detail = parsed.error.issues.map(describeIssue).join('; ');
      error = { code: sdk.ErrorCode.InvalidParams, message: `Invalid params for ${method}: ${detail}` };
    }
  } else if (!sdk.JSONRPCMessageSchema.safeParse(m).success || method === REFUSED) {
    error = { code: sdk.ErrorCode.MethodNotFound, message: `Method not found: ${method.slice(0, 100)}` };
  }
  if (error === null) return { kind: 'pass', message: m };
  refusals.set(id, error);
  return { kind: 'pass', message: { jsonrpc: '2.0', id, method: REFUSED } };
}

const jsonReply = (status: number, body: unknown): ApiReply => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});

type Screen =
  | { readonly reply: ApiReply }
  /** `refused`: a batch's messages that are not JSON-RPC, each answered -32600 beside the server's answers. */
  | { readonly body: unknown; readonly refused: readonly unknown[] };

/** The body the SDK is to read, or the answer when none of it reaches the server. */
function screenBody(sdk: McpServerSdk, raw: unknown, refusals: Map<Id, RpcError>): Screen {
  const batch = Array.isArray(raw);
  const list: unknown[] = batch ? raw : [raw];
  const invalid = (id: Id | null, why: string) => ({
    jsonrpc: '2.0',
    id,
    error: { code: sdk.ErrorCode.InvalidRequest, message: `Invalid Request: ${why}` },
  });
  if (list.length === 0) return { reply: jsonReply(400, invalid(null, 'an empty batch')) };
  const kept: unknown[] = [];
  const refused: unknown[] = [];
  // A request's answer is known by its id alone, so a second request under one id would go unanswered.
  const requestIds = new Map<Id, number>();
  for (const [i, m] of list.entries()) {
    const id = isObject(m) && 'method' in m && isId(m['id']) ? m['id'] : undefined;
    const first = id === undefined ? undefined : requestIds.get(id);
    if (id !== undefined && first === undefined) requestIds.set(id, i + 1);
    const one: Screened =
      first === undefined
        ? screenOne(sdk, m, refusals)
        : { kind: 'invalid', why: `id ${JSON.stringify(id)} repeats message ${first}` };
    if (one.kind === 'pass') kept.push(one.message);
    if (one.kind !== 'invalid') continue;
    if (!batch) return { reply: jsonReply(400, invalid(null, one.why)) };
    // JSON-RPC 2.0: a batch's invalid message gets its own error; the others are still answered.
    refused.push(invalid(isObject(m) && isId(m['id']) ? m['id'] : null, `message ${i + 1}: ${one.why}`));
  }
  if (kept.length === 0)
    return { reply: refused.length > 0 ? jsonReply(400, refused) : { status: 202, headers: {} } };
  return { body: batch ? kept : kept[0], refused };
}

/**
 * The server's answer to a batch, as an array (the SDK answers a batch with one answer as that answer
 * alone), with the errors of the batch's messages it never saw added.
 */
function asBatch(
  reply: { readonly status: number; readonly headers: Record<string, string>; readonly body: Buffer },
  refused: readonly unknown[],
): ApiReply {
  // Anything but a JSON answer (or none) is about the whole request: it stands alone.
  if (reply.status === 202) return refused.length === 0 ? reply : jsonReply(200, refused);
  if (reply.status !== 200 || !(reply.headers['content-type'] ?? '').includes('application/json'))
    return reply;
  const answered: unknown = JSON.parse(reply.body.toString('utf8'));
  const list: readonly unknown[] = Array.isArray(answered) ? answered : [answered];
  return jsonReply(200, [...list, ...refused]);
}

/** Answers the refused requests; sends what the server answers -32602 or -32603 as a bare -32603. */
function guard(sdk: McpServerSdk, transport: Transport, refusals: Map<Id, RpcError>, log: Logger): void {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  transport.onmessage = (message, extra) => {
    const refusal =
      sdk.isJSONRPCRequest(message) && message.method === REFUSED ? refusals.get(message.id) : undefined;
    if (refusal === undefined) return deliver?.(message, extra);
    if (sdk.isJSONRPCRequest(message))
      send({ jsonrpc: '2.0', id: message.id, error: refusal }).catch(() => undefined);
  };
  const own = new Set<number>([sdk.ErrorCode.InvalidParams, sdk.ErrorCode.InternalError]);
  transport.send = (message: JSONRPCMessage, options) => {
    if (!sdk.isJSONRPCErrorResponse(message) || !own.has(message.error.code)) return send(message, options);
    log.error(
      { event: 'mcp_internal_error', id: message.id ?? null, code: message.error.code },
      'mcp_internal_error',
    );
    const error = { code: sdk.ErrorCode.InternalError, message: 'Internal error' };
    return send({ jsonrpc: '2.0', id: message.id, error }, options);
  };
}

/**
 * An answer with no body (the 202 of a notification) leaves its body out: a Buffer body, even an empty
 * one, is written with `Content-Type: application/octet-stream` (http/respond.ts), naming a type for nothing.
 */
function withoutEmptyBody(reply: ApiReply): ApiReply {
  if (!Buffer.isBuffer(reply.body) || reply.body.length > 0) return reply;
  const { body: _empty, ...rest } = reply;
  return rest;
}

type Transport = InstanceType<McpServerSdk['WebStandardStreamableHTTPServerTransport']>;

/**
 * Answers one MCP request (POST or DELETE) with `server` over a stateless transport of its own (JSON
 * answers, no session, no server-initiated stream).
 */
export async function answerMcp(sdk: McpServerSdk, server: Server, req: ApiRequest): Promise<ApiReply> {
  const refusals = new Map<Id, RpcError>();
  let parsedBody: unknown;
  const hasBody = req.method === 'POST' && req.body.length > 0;
  if (hasBody) {
    try {
      // Decoded as the transport's own `Request.json()` would (a leading byte order mark dropped), so
      // every body it would read as JSON is screened here first.
      parsedBody = JSON.parse(new TextDecoder().decode(req.body));
    } catch {
      parsedBody = undefined; // the SDK answers it -32700 (parse error)
    }
  }
  let refused: readonly unknown[] = [];
  const batch = Array.isArray(parsedBody);
  /** An answer decided from the message alone: given only once the transport's header checks pass. */
  let early: ApiReply | null = null;
  if (parsedBody !== undefined) {
    const screened = screenBody(sdk, parsedBody, refusals);
    if ('reply' in screened) {
      early = screened.reply;
      // The transport checks `Accept` and `Content-Type` (406, 415) before it reads a message: it is handed
      // a notification nothing acts on, and its 202 means those checks passed.
      parsedBody = { jsonrpc: '2.0', method: 'notifications/initialized' };
    } else {
      parsedBody = screened.body;
      refused = screened.refused;
    }
  }
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  guard(sdk, transport, refusals, req.log);
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) headers.set(name, value);
    const request = new Request(`http://mcp.invalid${req.path}`, {
      method: req.method,
      headers,
      ...(hasBody ? { body: new Uint8Array(req.body) } : {}),
    });
    const response = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    const body = Buffer.from(await response.arrayBuffer());
    const reply = { status: response.status, headers: out, body };
    if (early !== null) return response.status === 202 ? early : reply;
    const answer = batch ? asBatch(reply, refused) : reply;
    return withoutEmptyBody(answer);
  } finally {
    await transport.close();
    await server.close();
  }
}
