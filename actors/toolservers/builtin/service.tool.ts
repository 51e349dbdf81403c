/**
 * The company's service tools (knowledge base, work tracker) as a seat's builtins: the same definitions
 * the operator surface serves, run as the seat. A write's op_id is derived from the call id, so a call
 * retried after a cut turn writes once; a refusal is a tool error the model can read.
 */
import { z } from 'zod';
import {
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
          : textResult(`${result.error}: ${result.detail}`, true);
      },
    };
  });
}

const text = (result: ToolResult): string =>
  result.content.map((part) => ('text' in part ? part.text : '')).join('\n');

/** A builtin's refusal (`Refused (<code>): <detail>`) as a coded one; any other error reads as `bad_params`. */
function refusal(message: string): ServiceToolResult {
  const m = /^Refused \(([a-z_]+)\): ([\s\S]*)$/.exec(message);
  return m ? { ok: false, error: m[1]!, detail: m[2]! } : { ok: false, error: 'bad_params', detail: message };
}

/**
 * A seat builtin (the work tracker's) served to an operator as the person: run as that person's seat
 * handle, with the op_id as the call id, so a retried act with the same op_id changes once. A write is
 * any tool not marked read-only.
 */
export function builtinAsServiceTool(tool: BuiltinTool): ServiceTool {
  return {
    name: tool.entry.name,
    description: tool.entry.description,
    annotations: { ...tool.entry.annotations },
    delivers: tool.entry.delivers,
    write: tool.entry.annotations['readOnlyHint'] !== true,
    // The tool's own schema (plus the operator's op_id), so arguments that do not fit are 400 with problems.
    args:
      tool.args instanceof z.ZodObject
        ? tool.args.extend({ op_id: z.string().optional() })
        : z.record(z.string(), z.unknown()),
    inputSchema: tool.entry.input_schema,
    async run(caller, args, opts) {
      const { op_id: _opId, ...rest } = args;
      const ctx = { seat: caller.id, agent_id: caller.id, call_id: opts.opId, op_id: opts.opId };
      const result = await tool.call(ctx, rest);
      const body = text(result);
      if (result.is_error) return refusal(body);
      try {
        return { ok: true, value: JSON.parse(body) as unknown };
      } catch {
        return { ok: true, value: body };
      }
    },
  };
}
