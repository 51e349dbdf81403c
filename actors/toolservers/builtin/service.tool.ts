/**
 * The company's service tools (knowledge base, work tracker) as a seat's builtins: the same definitions
 * the operator surface serves, run as the seat. A write's op_id is derived from the call id, so a call
 * retried after a cut turn writes once; a refusal is a tool error the model can read.
 */
import { z } from 'zod';
import {
  OpId,
  serviceToolInputSchema,
  type ServiceTool,
  type ServiceToolResult,
  type ToolEntry,
  type ToolResult,
} from '../../../schema/index.js';
import { textResult } from './builtin.define.js';
import { builtinCallId, type BuiltinTool } from './builtin.types.js';

export function serviceBuiltins(tools: readonly ServiceTool[]): BuiltinTool[] {
  return tools.map((tool) => {
    const entry: ToolEntry = {
      name: tool.name,
      description: tool.description,
      source: 'builtin',
      annotations: { ...tool.annotations },
      delivers: tool.delivers,
      input_schema: serviceToolInputSchema(tool),
    };
    return {
      entry,
      async call(ctx, args) {
        const parsed = tool.args.safeParse(args);
        if (!parsed.success)
          return textResult(`invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`, true);
        const result = await tool.run({ kind: 'seat', id: ctx.seat, name: null }, parsed.data, {
          opId: builtinCallId(ctx, tool.name),
        });
        return result.ok
          ? textResult(JSON.stringify(result.value, null, 2))
          : refusedResult(result.error, result.detail, result.problems ?? []);
      },
    };
  });
}

const texts = (result: ToolResult): string[] =>
  result.content.map((part) => ('text' in part ? part.text : ''));
const text = (result: ToolResult): string => texts(result).join('\n');

const PROBLEMS = 'Problems: ';
const Problems = z.array(
  z.object({ path: z.string(), kind: z.string().optional(), message: z.string() }).strip(),
);
type Problems = z.infer<typeof Problems>;

/**
 * A builtin's coded refusal, as the model reads it and `refusal` reads it back: `Refused (<code>):
 * <detail>`, then the problems as JSON in a second part when there are any.
 */
export function refusedResult(code: string, detail: string, problems: Readonly<Problems> = []): ToolResult {
  return {
    content: [
      { type: 'text', text: `Refused (${code}): ${detail}` },
      ...(problems.length > 0
        ? [{ type: 'text' as const, text: `${PROBLEMS}${JSON.stringify(problems)}` }]
        : []),
    ],
    is_error: true,
  };
}

/** A builtin's refusal (see `refusedResult`) as a coded one; any other error reads as `bad_params`. */
function refusal(result: ToolResult): ServiceToolResult {
  const [head = '', ...rest] = texts(result);
  const m = /^Refused \(([a-z_]+)\): ([\s\S]*)$/.exec(head);
  if (!m) return { ok: false, error: 'bad_params', detail: text(result) };
  const listed = rest.find((part) => part.startsWith(PROBLEMS))?.slice(PROBLEMS.length);
  let problems: Problems = [];
  try {
    problems = listed === undefined ? [] : Problems.parse(JSON.parse(listed));
  } catch {
    // Words for the model, not the list: the refusal stands without it.
  }
  return { ok: false, error: m[1]!, detail: m[2]!, ...(problems.length > 0 ? { problems } : {}) };
}

const OP_ID_DESCRIPTION = 'Retry handle: the same op_id never writes twice (absent: a fresh one).';

/**
 * A seat builtin (the work tracker's) served to an operator as the person: run as that person's seat
 * handle, with the op_id as the call id, so a retried act with the same op_id changes once. A write is
 * any tool not marked read-only.
 */
export function builtinAsServiceTool(tool: BuiltinTool): ServiceTool {
  const write = tool.entry.annotations['readOnlyHint'] !== true;
  return {
    name: tool.entry.name,
    description: tool.entry.description,
    annotations: { ...tool.entry.annotations },
    delivers: tool.entry.delivers,
    write,
    // The tool's own schema (plus the operator's op_id), so arguments that do not fit are 400 with problems.
    args:
      tool.args instanceof z.ZodObject
        ? tool.args.extend({ op_id: OpId.optional().describe(OP_ID_DESCRIPTION) })
        : z.record(z.string(), z.unknown()),
    inputSchema: write ? withOpId(tool.entry.input_schema) : tool.entry.input_schema,
    ...(tool.precheck ? { precheck: withoutOpId(tool.precheck) } : {}),
    async run(caller, args, opts) {
      const { op_id: given, ...rest } = args;
      // The arguments' op_id is the retry handle (over MCP too); the caller's only when they carry none.
      const opId = typeof given === 'string' ? given : opts.opId;
      const ctx = { seat: caller.id, agent_id: caller.id, call_id: opId, op_id: opId };
      const result = await tool.call(ctx, rest);
      const body = text(result);
      if (result.is_error) return refusal(result);
      try {
        return { ok: true, value: JSON.parse(body) as unknown };
      } catch {
        return { ok: true, value: body };
      }
    },
  };
}

/** A builtin's precheck asked of the arguments without the operator's `op_id`, its refusal as a coded one. */
function withoutOpId(precheck: NonNullable<BuiltinTool['precheck']>) {
  return (args: Record<string, unknown>) => {
    const { op_id: opId, ...rest } = args;
    const checked = precheck(rest);
    if (!('refused' in checked))
      return { args: opId === undefined ? checked.args : { ...checked.args, op_id: opId } };
    const coded = refusal(checked.refused);
    return coded.ok ? { args } : { refused: coded };
  };
}

/** The tool's argument schema with `op_id` among its properties, as an operator's client sees it. */
function withOpId(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties = (schema['properties'] ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    properties: { ...properties, op_id: { type: 'string', description: OP_ID_DESCRIPTION } },
  };
}
