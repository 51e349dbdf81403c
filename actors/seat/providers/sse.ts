/**
 * Server-sent events (WHATWG "event stream interpretation"): lines end in CRLF, LF or CR; `data`
 * lines of one event join with LF; a blank line dispatches; `:` lines are comments. Both providers
 * stream their answers this way.
 */

export interface SseEvent {
  /** `message` when the server named none. */
  readonly event: string;
  readonly data: string;
}

const LF = 10;
const CR = 13;

/** Splits a byte stream into events. An event left without its closing blank line at EOF is dropped. */
export async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let event = '';
  let data: string[] = [];

  // A plain function, not a generator per line: a model's answer is read on every round (turn-engine.md
  // "Benchmarks"), and each line's generator and its async step cost more than the line's parsing.
  const take = (line: string): SseEvent | null => {
    if (line === '') {
      const out = data.length > 0 ? { event: event || 'message', data: data.join('\n') } : null;
      event = '';
      data = [];
      return out;
    }
    if (line.charCodeAt(0) === 58 /* : */) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    // `id` and `retry` do not matter to a single request's stream.
    return null;
  };
  /** The events of the complete lines in `buffer`; what follows the last line end stays in it. */
  const lines = (): SseEvent[] => {
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < buffer.length; i += 1) {
      const c = buffer.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (c === CR && i === buffer.length - 1) break;
      const e = take(buffer.slice(start, i));
      if (e !== null) out.push(e);
      if (c === CR && buffer.charCodeAt(i + 1) === LF) i += 1;
      start = i + 1;
    }
    buffer = start === buffer.length ? '' : buffer.slice(start);
    return out;
  };

  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (const e of lines()) yield e;
  }
  buffer += decoder.decode();
  if (buffer.endsWith('\r')) {
    const e = take(buffer.slice(0, -1));
    if (e !== null) yield e;
  }
}
