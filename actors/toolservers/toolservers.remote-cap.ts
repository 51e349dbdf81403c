/**
 * A remote tool server's answers, capped as a stdio server's messages are: the fetch a remote's transport
 * uses reads at most `limit` bytes of one message (a JSON body, or one event of an event stream) and then
 * cuts the request, so a server answering without end costs the node at most that much memory.
 *
 * How the cut reaches the caller depends on the answer's form. A JSON body errors the read: the SDK's
 * request rejects with the limit's words. An event stream cannot be errored (the SDK would resume it and the
 * call would wait out its timeout), so the answer to the request is put in the stream in place of the rest:
 * a `tools/call` gets a result marked `isError` (which the SDK takes as the answer, and so does not resume),
 * any other request a JSON-RPC error. An error status's body is cut short (only its first line is read).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';

/** The same 10 MiB as a stdio message (the MCP SDK's read buffer, `STDIO_DEFAULT_MAX_BUFFER_SIZE`). */
export const remoteMessageLimit = 10 * 1024 * 1024;

/** What the node sent: a request (with an id) is answered; a notification or a GET has nothing to answer. */
const Sent = z.looseObject({
  id: z.union([z.string(), z.number()]),
  method: z.string(),
  params: z.looseObject({ name: z.unknown().optional() }).optional(),
});
type Sent = z.infer<typeof Sent>;

function sentRequest(init: RequestInit | undefined): Sent | null {
  if (typeof init?.body !== 'string') return null;
  try {
    const parsed = Sent.safeParse(JSON.parse(init.body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const oversizeAnswerText = (limit: number): string =>
  `the tool server sent an answer over the ${limit / 1024 / 1024} MiB limit of a tool server's message (a tool result or tool list too large); the request was cut there`;

interface Oversize {
  readonly limit_bytes: number;
  /** The JSON-RPC method of the request answered, when the answer was to one. */
  readonly method: string | null;
  readonly tool: string | null;
}

const encoder = new TextEncoder();
const LF = 0x0a;
const CR = 0x0d;

/**
 * Counts the bytes of the event an event stream is in (an event ends at a blank line, after LF, CRLF or CR
 * line ends). `feed` answers -1 while the event in progress is within `limit`, otherwise the offset in the
 * chunk just past the last whole event it holds (the bytes before it are complete events, safe to pass on).
 */
function eventMeter(limit: number): (chunk: Uint8Array) => number {
  let event = 0;
  let line = 0;
  let afterCr = false;
  return (chunk) => {
    let lastEnd = 0;
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i]!;
      if (byte === LF && afterCr) {
        afterCr = false;
        if (event === 0) lastEnd = i + 1;
        continue;
      }
      afterCr = byte === CR;
      if (byte === LF || byte === CR) {
        if (line === 0) {
          event = 0;
          lastEnd = i + 1;
        }
        line = 0;
        continue;
      }
      line += 1;
      event += 1;
      if (event > limit) return lastEnd;
    }
    return -1;
  };
}

/** The stream of `body`, handed on until `measure` says the limit is passed; then `over` ends it. */
function guarded(
  body: ReadableStream<Uint8Array>,
  measure: (chunk: Uint8Array) => number,
  over: (controller: ReadableStreamDefaultController<Uint8Array>) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        const cut = measure(value);
        if (cut < 0) return controller.enqueue(value);
        if (cut > 0) controller.enqueue(value.subarray(0, cut));
        // Cancelling the body aborts the request: the server's connection is closed, nothing more is read.
        await reader.cancel().catch(() => undefined);
        over(controller);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Counts a whole body: -1 within `limit`, else 0 (nothing of the chunk is handed on). */
function bodyMeter(limit: number): (chunk: Uint8Array) => number {
  let seen = 0;
  return (chunk) => ((seen += chunk.length) > limit ? 0 : -1);
}

/** The event standing in for the rest of a cut stream: the answer to `sent`, saying why. */
function answerEvent(sent: Sent, text: string, server: string): Uint8Array {
  const tool = typeof sent.params?.name === 'string' ? sent.params.name : '';
  const failed = `tool ${tool} on ${server} failed: ${text}`;
  const message =
    sent.method === 'tools/call'
      ? { jsonrpc: '2.0', id: sent.id, result: { content: [{ type: 'text', text: failed }], isError: true } }
      : { jsonrpc: '2.0', id: sent.id, error: { code: -32603, message: text } };
  // The blank line first ends the event cut in the middle (the SDK reads it as unparsable and moves on).
  return encoder.encode(`\n\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * `base` (the global fetch), its answers capped at `limit` bytes a message; `onOversize` hears each cut.
 * `server` names the tool server in a cut call's answer, worded as any failed call's is.
 */
export function cappedFetch(
  limit: number,
  server: string,
  onOversize: (what: Oversize) => void,
  base: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const body = response.body;
    // A redirect is read by the SDK from the response itself (its type, its location): handed on untouched.
    if (
      body === null ||
      response.type === 'opaqueredirect' ||
      (response.status >= 300 && response.status < 400)
    )
      return response;
    const sent = sentRequest(init);
    const tool =
      sent?.method === 'tools/call' && typeof sent.params?.name === 'string' ? sent.params.name : null;
    const said = (): void => onOversize({ limit_bytes: limit, method: sent?.method ?? null, tool });
    const text = oversizeAnswerText(limit);
    const stream = /^\s*text\/event-stream\s*(;|$)/i.test(response.headers.get('content-type') ?? '')
      ? guarded(body, eventMeter(limit), (controller) => {
          said();
          if (sent !== null) controller.enqueue(answerEvent(sent, text, server));
          // A stream answering no request of ours (the standalone one): cut, and the SDK reconnects it.
          if (sent === null) controller.error(new Error(text));
          else controller.close();
        })
      : guarded(body, bodyMeter(limit), (controller) => {
          said();
          // An error status's body is only read for its first line: what came is enough.
          if (!response.ok) controller.close();
          else controller.error(new Error(text));
        });
    return new Response(stream, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
