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

/** Splits a byte stream into events. An event left without its closing blank line at EOF is dropped. */
export async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let hasData = false;

  const take = function* (line: string): Generator<SseEvent> {
    if (line === '') {
      if (hasData) yield { event: event || 'message', data: data.join('\n') };
      event = '';
      data = [];
      hasData = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      hasData = true;
    }
    // `id` and `retry` do not matter to a single request's stream.
  };

  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < buffer.length; i += 1) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (c === '\r' && i === buffer.length - 1) break;
      yield* take(buffer.slice(start, i));
      if (c === '\r' && buffer[i + 1] === '\n') i += 1;
      start = i + 1;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer.endsWith('\r')) {
    yield* take(buffer.slice(0, -1));
  }
}
