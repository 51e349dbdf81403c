/**
 * An MCP `tools/call` result as the model sees it: text parts only (images, audio and resources are
 * named, not inlined), `is_error` carried over, structured content as JSON when nothing else came.
 */
import { z } from 'zod';
import type { TextPart, ToolResult } from '../../schema/index.js';

const Part = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  mimeType: z.string().optional(),
  uri: z.string().optional(),
  name: z.string().optional(),
  resource: z.looseObject({ uri: z.string().optional(), text: z.string().optional() }).optional(),
});

const CallResult = z.looseObject({
  content: z.array(z.unknown()).optional(),
  isError: z.boolean().optional(),
  structuredContent: z.unknown().optional(),
  /** Servers on protocol 2024-10-07 answer `toolResult` instead. */
  toolResult: z.unknown().optional(),
});

function partText(raw: unknown): string {
  const parsed = Part.safeParse(raw);
  if (!parsed.success) return '[unreadable content part]';
  const part = parsed.data;
  switch (part.type) {
    case 'text':
      return part.text ?? '';
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType ?? ''}]`.replace(' ]', ']');
    case 'resource_link':
      return `[resource ${part.name ?? ''} ${part.uri ?? ''}]`;
    case 'resource':
      return part.resource?.text ?? `[resource ${part.resource?.uri ?? ''}]`;
    default:
      return `[${part.type} content]`;
  }
}

export function toToolResult(raw: unknown): ToolResult {
  const parsed = CallResult.safeParse(raw);
  if (!parsed.success) {
    return { content: [{ type: 'text', text: 'the tool server sent an unreadable result' }], is_error: true };
  }
  const result = parsed.data;
  const texts = (result.content ?? []).map(partText);
  if (texts.length === 0 && result.structuredContent !== undefined)
    texts.push(JSON.stringify(result.structuredContent));
  if (texts.length === 0 && result.toolResult !== undefined) texts.push(JSON.stringify(result.toolResult));
  const content: TextPart[] = texts.map((text) => ({ type: 'text', text }));
  return { content, is_error: result.isError === true };
}

/**
 * Why a call was cancelled: the signal's reason when it is a message (a turn's deadline gives one) or an
 * Error's message (a turn cut for a shutdown).
 */
export const cancelReason = (signal: AbortSignal): string => {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string' && reason !== '') return reason;
  if (reason instanceof Error && reason.message !== '') return reason.message;
  return 'cancelled by the caller';
};

/** The answer of a call its caller cancelled (the turn was cut): what the model would have read. */
export const cancelledResult = (name: string, signal: AbortSignal): ToolResult => ({
  content: [{ type: 'text', text: `tool ${name} was cancelled: ${cancelReason(signal)}` }],
  is_error: true,
});

/** A failure the model reads as the tool's answer. */
export const errorResult = (text: string): ToolResult => ({
  content: [{ type: 'text', text }],
  is_error: true,
});

/** One issue of a schema check, as zod (3 or 4, whichever the SDK runs on) reports it. */
const SchemaIssues = z.object({
  issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })).min(1),
});

/**
 * An error as one line. The SDK rejects an answer that does not match the MCP schema (a bad tool list)
 * with zod's error, whose message is the issues as pretty JSON, forty lines in `last_failure.error`: it
 * is said as its first issue and how many more there are.
 */
export function errorText(error: unknown): string {
  const parsed = error instanceof Error ? SchemaIssues.safeParse(error) : null;
  if (parsed?.success) {
    const [first, ...rest] = parsed.data.issues;
    const at = first!.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('');
    const more = rest.length > 0 ? ` (and ${rest.length} more)` : '';
    return `the tool server's answer does not match the MCP schema: ${at.replace(/^\./, '') || '(answer)'}: ${first!.message}${more}`;
  }
  return error instanceof Error ? error.message : String(error);
}
