/**
 * The company's service tools (knowledge base, work tracker) as a seat's builtins: the same definitions
 * the operator surface serves, run as the seat. A write's op_id is derived from the call id, so a call
 * retried after a cut turn writes once; a refusal is a tool error the model can read.
 */
import { z } from 'zod';
import { serviceToolInputSchema, type ServiceTool, type ToolEntry } from '../../../schema/index.js';
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
