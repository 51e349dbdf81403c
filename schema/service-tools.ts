/**
 * Tools over the company's own services (the knowledge base, the work tracker) that both a seat and an
 * operator's assistant call: one definition each, adapted to a seat's builtin tools and to
 * `/operator/mcp` + `/operator/act/{tool}`. The caller is who the change is recorded as.
 */
import { z } from 'zod';

/**
 * Who acts: a human seat an operator token is bound to (`person`), an agent seat (`seat`), an unbound
 * operator token (`operator`, id = token id), or the caller of a disabled guard (`anonymous`).
 */
export const ServiceCaller = z.object({
  kind: z.enum(['person', 'seat', 'operator', 'anonymous']),
  /** The seat handle (person, seat) or the token id (operator); `anonymous` for the last kind. */
  id: z.string().min(1).max(200),
  name: z.string().max(200).nullable(),
});
export type ServiceCaller = z.infer<typeof ServiceCaller>;

/** A tool's refusal: a catalogued error code and words for the caller. */
interface ServiceToolRefusal {
  readonly ok: false;
  readonly error: string;
  readonly detail: string;
  /** What to fix (a `validation_error`'s entries: the field's path, its kind, words). */
  readonly problems?: ReadonlyArray<{ path: string; kind?: string; message: string }>;
}
/** A tool's answer: a JSON value, or a refusal. */
export type ServiceToolResult = { readonly ok: true; readonly value: unknown } | ServiceToolRefusal;

export interface ServiceTool {
  readonly name: string;
  readonly description: string;
  /** MCP tool annotations (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`). */
  readonly annotations: Readonly<Record<string, unknown>>;
  /** Where the tool's effect lands (`knowledge_base`, `work_tracker`); null for a read. */
  readonly delivers: string | null;
  /** Writes are what `/operator/act/{tool}` serves; reads only `/operator/mcp` and seats. */
  readonly write: boolean;
  readonly args: z.ZodType<Record<string, unknown>>;
  /** The arguments' JSON Schema when `args` does not carry it (a tool that validates its own arguments). */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /**
   * Asked before `args` checks the arguments: the tool's refusal by name of arguments `args` would refuse
   * as a bad shape (work_update's null title: the tool's words, not a type error), or the arguments to check.
   */
  readonly precheck?: (
    args: Record<string, unknown>,
  ) => { readonly refused: ServiceToolRefusal } | { readonly args: Record<string, unknown> };
  /** `opId`: the retry handle a write records when its arguments carry none. */
  run(
    caller: ServiceCaller,
    args: Record<string, unknown>,
    opts: { readonly opId: string },
  ): Promise<ServiceToolResult>;
}

/** The JSON Schema of a tool's arguments, as a catalogue entry and MCP's `inputSchema` carry it. */
export function serviceToolInputSchema(tool: ServiceTool): Record<string, unknown> {
  if (tool.inputSchema) return { ...tool.inputSchema };
  const json = z.toJSONSchema(tool.args, { io: 'input' }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}
