/**
 * Builds a builtin tool from a zod argument schema: the catalogue entry's `input_schema` is the
 * schema's JSON Schema, and arguments that do not fit come back as a readable tool error rather
 * than reaching the implementation.
 */
import { z } from 'zod';
import type { ToolEntry, ToolResult } from '../../../schema/index.js';
import type { BuiltinTool, ToolContext } from './builtin.types.js';

export interface BuiltinDefinition<S extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly annotations: Record<string, unknown>;
  readonly delivers: string | null;
  readonly args: S;
  /** Whether the seat is offered the tool (default: every seat). */
  readonly offered?: (seat: string) => boolean;
  run(ctx: ToolContext, args: z.output<S>): Promise<ToolResult>;
}

export const textResult = (text: string, isError = false): ToolResult => ({
  content: [{ type: 'text', text }],
  is_error: isError,
});

function inputSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}

const argumentsRefusal = (name: string): string => `invalid arguments for ${name}:`;

/** Whether a builtin's error text is its refusal of the call's arguments: such a call ran nothing. */
export const refusedArguments = (name: string, error: string): boolean =>
  error.startsWith(argumentsRefusal(name));

export function defineBuiltin<S extends z.ZodType>(def: BuiltinDefinition<S>): BuiltinTool {
  const entry: ToolEntry = {
    name: def.name,
    description: def.description,
    source: 'builtin',
    annotations: def.annotations,
    delivers: def.delivers,
    input_schema: inputSchema(def.args),
  };
  return {
    entry,
    args: def.args,
    ...(def.offered ? { offered: def.offered } : {}),
    async call(ctx, args) {
      const parsed = def.args.safeParse(args);
      if (!parsed.success) {
        return textResult(`${argumentsRefusal(def.name)}\n${z.prettifyError(parsed.error)}`, true);
      }
      return def.run(ctx, parsed.data);
    },
  };
}
