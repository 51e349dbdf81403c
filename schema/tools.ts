/**
 * A tool catalogue entry (spec "Other resources"; CONTRACTS.md 5). The tool-server manager produces
 * these; `/tools` serves them. `annotations` are the tool's behavioural hints as its source states them.
 */
import { z } from 'zod';

export const ToolEntry = z.object({
  name: z.string().min(1),
  description: z.string(),
  source: z.union([z.literal('builtin'), z.string().regex(/^mcp:.+$/)]),
  annotations: z.record(z.string(), z.unknown()),
  /** Where the tool delivers (a colleague surface such as `chat`), null when it delivers nowhere. */
  delivers: z.string().nullable(),
  input_schema: z.record(z.string(), z.unknown()),
});
export type ToolEntry = z.infer<typeof ToolEntry>;
