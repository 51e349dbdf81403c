/**
 * Tools a seat can call (spec "Other resources": tool catalogue entry; `/tools`, `/mcp-servers`):
 * the catalogue entry, the call and result shapes the turn engine uses, and the per-node status of
 * every tool server.
 */
import { z } from 'zod';

/** `builtin`, or `mcp:<server name>` for a tool a configured tool server serves. */
export const ToolSource = z.union([z.literal('builtin'), z.string().regex(/^mcp:.+$/)]);
export type ToolSource = z.infer<typeof ToolSource>;

export const mcpSource = (server: string): ToolSource => `mcp:${server}`;

/**
 * One tool of the catalogue. `annotations` are behavioural hints (the MCP `ToolAnnotations` keys:
 * `title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`); `delivers` names
 * where the tool's effect lands (`personal_memory`, `needs`), null when it only reads or the server
 * does not say.
 */
export const ToolEntry = z.object({
  name: z.string().min(1),
  description: z.string(),
  source: ToolSource,
  annotations: z.record(z.string(), z.unknown()),
  delivers: z.string().nullable(),
  input_schema: z.record(z.string(), z.unknown()),
});
export type ToolEntry = z.infer<typeof ToolEntry>;

const mcpSourcePattern = /^mcp:.+$/;

/**
 * A record `z.record(z.string(), z.unknown())` answers with a copy of as is: a plain object whose own keys
 * are enumerable strings, none of them `__proto__` or `constructor` (anything else: ask the schema).
 */
function simpleRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.hasOwn(value, '__proto__') || Object.hasOwn(value, 'constructor')) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  return Object.getOwnPropertyNames(value).length === Object.keys(value).length;
}

/**
 * `ToolEntry.safeParse(value)`'s data, or null where it fails. An entry of the shape the catalogue builds is
 * checked by hand and copied as the schema copies it (its keys in the schema's order, the two records
 * copied): the schema costs a few µs an entry, so 10,000 tools took tens of ms at every catalogue change.
 * Anything else is checked by the schema.
 */
export function toolEntryOf(value: unknown): ToolEntry | null {
  if (simpleRecord(value)) {
    const { name, description, source, annotations, delivers, input_schema } = value;
    if (
      typeof name === 'string' &&
      name.length > 0 &&
      typeof description === 'string' &&
      typeof source === 'string' &&
      (source === 'builtin' || mcpSourcePattern.test(source)) &&
      (delivers === null || typeof delivers === 'string') &&
      simpleRecord(annotations) &&
      simpleRecord(input_schema)
    )
      return {
        name,
        description,
        source,
        annotations: { ...annotations },
        delivers,
        input_schema: { ...input_schema },
      };
  }
  const parsed = ToolEntry.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** A call the model asked for: the tool's catalogue name and its arguments object. */
export const ToolCall = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const TextPart = z.object({ type: z.literal('text'), text: z.string() });
export type TextPart = z.infer<typeof TextPart>;

/** What goes back to the model. A refused or failed call is `is_error: true` with a reason, never a throw. */
export const ToolResult = z.object({
  content: z.array(TextPart),
  is_error: z.boolean(),
});
export type ToolResult = z.infer<typeof ToolResult>;

/**
 * A result with the origin the turn record needs (`origin`, `server` of a tool execution); `source`
 * is null when no tool of that name was served.
 */
export const RoutedToolResult = ToolResult.extend({
  source: ToolSource.nullable(),
  server: z.string().nullable(),
});
export type RoutedToolResult = z.infer<typeof RoutedToolResult>;

export const ToolServerState = {
  Starting: 'starting',
  Started: 'started',
  Backoff: 'backoff',
  Stopped: 'stopped',
} as const;
export type ToolServerState = (typeof ToolServerState)[keyof typeof ToolServerState];

const failure = z.object({ at: z.string(), error: z.string() });

/**
 * One running tool-server instance on one node: the shared one (`seat: null`) or one seat's.
 * `started` is true while connected; `failed` while it is down after a failure (restart pending).
 * Error texts have every env and header value of the instance removed.
 */
export const ToolServerStatus = z.object({
  server: z.string(),
  seat: z.string().nullable(),
  shared: z.boolean(),
  transport: z.enum(['stdio', 'http']),
  state: z.enum([
    ToolServerState.Starting,
    ToolServerState.Started,
    ToolServerState.Backoff,
    ToolServerState.Stopped,
  ]),
  started: z.boolean(),
  failed: z.boolean(),
  tools_served: z.number().int().nonnegative(),
  tools: z.array(z.string()),
  started_at: z.string().nullable(),
  first_failure: failure.nullable(),
  last_failure: failure.nullable(),
  /** Restarts after a failure (not restarts an apply asked for). */
  restarts: z.number().int().nonnegative(),
  next_restart_at: z.string().nullable(),
  pid: z.number().int().nullable(),
});
export type ToolServerStatus = z.infer<typeof ToolServerStatus>;

/** `GET /mcp-servers`: per node, per tool-server instance. */
export const McpServersAnswer = z.object({
  nodes: z.array(z.object({ node: z.string(), servers: z.array(ToolServerStatus) })),
});
export type McpServersAnswer = z.infer<typeof McpServersAnswer>;
