/**
 * An MCP `tools/call` result as the model sees it: text parts only (images, audio and resources are
 * named, not inlined), `is_error` carried over, structured content as JSON when nothing else came.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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
  const remote = remoteText(error);
  if (remote !== undefined) return remote;
  const parsed = error instanceof Error ? SchemaIssues.safeParse(error) : null;
  if (parsed?.success) {
    const [first, ...rest] = parsed.data.issues;
    const at = first!.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('');
    const more = rest.length > 0 ? ` (and ${rest.length} more)` : '';
    return `the tool server's answer does not match the MCP schema: ${at.replace(/^\./, '') || '(answer)'}: ${first!.message}${more}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** What the SDK's streamable HTTP transport puts before what the server answered. */
const HTTP_PREFIX =
  /^Streamable HTTP error: (?:Error POSTing to endpoint: |Failed to open SSE stream: |Failed to terminate session: )?/;

/**
 * A remote's failure in words: the HTTP status it answered with the first line of what it said (an error
 * page is often kilobytes of HTML; the SDK quotes it whole), a redirect the SDK did not follow (to another
 * origin, where the entry's headers must not go), or why it could not be reached (fetch's cause).
 * Undefined for any other error. Not cut here: the caller scrubs secrets first, then cuts (`oneLine`).
 */
function remoteText(error: unknown): string | undefined {
  if (error instanceof StreamableHTTPError) {
    const said = error.message.replace(HTTP_PREFIX, '');
    const first = (said.split(/\r?\n/).find((line) => line.trim() !== '') ?? '').trim();
    const detail = first
      .replace(" (redirectPolicy: 'same-origin')", '')
      .replace(/^(Redirect to \S+ not followed)$/, '$1 (another origin; set url to the address it names)');
    // The SDK's own refusals (an answer of an unexpected content type) carry no status: code -1.
    if (typeof error.code !== 'number' || error.code < 100)
      return `the tool server's answer was unusable: ${detail}`;
    return `the tool server answered HTTP ${error.code}${detail === '' ? '' : `: ${detail}`}`;
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause: unknown = error.cause;
    const code: unknown = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
    // A refused connection to several addresses is an AggregateError with no message, only a code.
    const why = cause instanceof Error ? cause.message || (typeof code === 'string' ? code : '') : '';
    return `the tool server could not be reached${why === '' ? '' : `: ${why}`}`;
  }
  return undefined;
}

/** Longest failure text kept (`last_failure.error`, a call's error answer), in characters. */
const MAX_FAILURE_TEXT = 500;

/** A failure text as one line of at most 500 characters; applied after secrets are scrubbed. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return flat.length <= MAX_FAILURE_TEXT ? flat : `${flat.slice(0, MAX_FAILURE_TEXT - 1)}…`;
}
