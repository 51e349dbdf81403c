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
  // The line not yet ended, in pieces: a long line arriving in many chunks is neither rescanned nor copied
  // whole on every chunk.
  let partial: string[] = [];
  // The last text ended in CR: an LF opening the next is the second half of that CRLF.
  let afterCr = false;
  /** The events of the lines `text` ends; what follows its last line end waits in `partial`. */
  const lines = (text: string): SseEvent[] => {
    const out: SseEvent[] = [];
    let start = afterCr && text.charCodeAt(0) === LF ? 1 : 0;
    afterCr = false;
    for (let i = start; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      partial.push(text.slice(start, i));
      const e = take(partial.length === 1 ? (partial[0] as string) : partial.join(''));
      partial = [];
      if (e !== null) out.push(e);
      if (c === CR) {
        if (i === text.length - 1) afterCr = true;
        else if (text.charCodeAt(i + 1) === LF) i += 1;
      }
      start = i + 1;
    }
    if (start < text.length) partial.push(text.slice(start));
    return out;
  };

  for await (const chunk of body) {
    for (const e of lines(decoder.decode(chunk, { stream: true }))) yield e;
  }
  for (const e of lines(decoder.decode())) yield e;
}
