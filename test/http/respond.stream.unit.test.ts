/**
 * The streamed-answer writer against a response that takes only as many bytes as it is told to, the way
 * uWS's `tryEnd` reports backpressure: the next chunk is read only once the last was taken whole, a
 * response that went away is never touched again, and the reading is closed however the answer ends.
 */
import { setImmediate as settled } from 'node:timers/promises';
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import t from 'tap';
import { StreamedBody } from '../../http/reply.js';
import { openStream, StreamWriter, type StreamHead } from '../../http/respond.stream.js';

/** A response taking at most `room` body bytes until `drain` makes more room and calls `onWritable`. */
class FakeResponse {
  readonly head: string[] = [];
  readonly body: Buffer[] = [];
  /** Calls made where uWS would end the process (after the end, or after `gone()`), or uncorked writes. */
  readonly misuse: string[] = [];
  offset = 0;
  closed = false;
  private ended = false;
  private away = false;
  private corked = false;
  private writable: ((offset: number) => boolean) | null = null;

  constructor(private room: number) {}

  private use(what: string, write = true): void {
    if (this.ended || this.away) this.misuse.push(`${what} after the response ended`);
    if (write && !this.corked) this.misuse.push(`${what} uncorked`);
  }
  cork(cb: () => void): this {
    this.use('cork', false);
    this.corked = true;
    cb();
    this.corked = false;
    return this;
  }
  writeStatus(status: string): this {
    this.use('writeStatus');
    this.head.push(status);
    return this;
  }
  writeHeader(name: string, value: string): this {
    this.use('writeHeader');
    this.head.push(`${name}: ${value}`);
    return this;
  }
  endWithoutBody(): this {
    this.use('endWithoutBody');
    this.ended = true;
    return this;
  }
  getWriteOffset(): number {
    this.use('getWriteOffset', false);
    return this.offset;
  }
  onWritable(handler: (offset: number) => boolean): this {
    this.use('onWritable', false);
    this.writable = handler;
    return this;
  }
  tryEnd(chunk: Uint8Array, total: number): [boolean, boolean] {
    this.use('tryEnd');
    const taken = Math.min(chunk.length, this.room);
    this.body.push(Buffer.from(chunk.subarray(0, taken)));
    this.room -= taken;
    this.offset += taken;
    if (this.offset === total) this.ended = true;
    return [taken === chunk.length, this.ended];
  }
  close(): this {
    this.use('close', false);
    this.closed = true;
    this.away = true;
    return this;
  }
  /** The client read `bytes`: uWS calls the writable handler, outside any cork. */
  drain(bytes: number): boolean {
    this.room += bytes;
    return this.writable?.(this.offset) ?? true;
  }
  /** The client left: from now on every call is a misuse. */
  gone(): void {
    this.away = true;
  }
  asResponse(): HttpResponse {
    return this as unknown as HttpResponse;
  }
}

/** Chunks of `size` bytes counted as they are read; `fail` makes that read (0-based) throw. */
function source(chunks: number, size: number, fail?: number) {
  const made = Array.from({ length: chunks }, (_, i) => Buffer.alloc(size, i + 1));
  const state = { pulls: 0, returned: false };
  const iterator: AsyncIterator<Uint8Array> = {
    next() {
      const i = state.pulls++;
      if (i === fail) return Promise.reject(new Error('chunk unreadable'));
      return Promise.resolve(
        i < chunks ? { done: false, value: made[i]! } : { done: true, value: undefined },
      );
    },
    return() {
      state.returned = true;
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  const body = new StreamedBody(chunks * size, { [Symbol.asyncIterator]: () => iterator });
  return { body, state, whole: Buffer.concat(made) };
}

const head = (res: FakeResponse, headOnly = false): StreamHead => ({
  write: () => res.writeStatus('200 OK').writeHeader('X-Content-Type-Options', 'nosniff'),
  headOnly,
  close: false,
});

t.test('the next chunk is read only once the client took the last one whole', async (t) => {
  const src = source(4, 10);
  const res = new FakeResponse(15);
  const writer = new StreamWriter(res.asResponse());
  const ended = writer.run(head(res), await openStream(src.body));
  await settled();
  t.equal(src.state.pulls, 2, 'the first chunk went whole; the second is half taken');
  t.equal(res.offset, 15);
  await settled();
  t.equal(src.state.pulls, 2, 'nothing more is read while the client does not read');

  t.equal(res.drain(3), false, 'part of what waits: still not all taken');
  await settled();
  t.equal(src.state.pulls, 2);
  t.equal(res.drain(100), true, 'the rest of the chunk taken');
  await settled();
  t.same(await ended, { outcome: 'done', bytes: 40 });
  t.ok(Buffer.concat(res.body).equals(src.whole), 'every byte once, in order');
  t.same(res.head, ['200 OK', 'X-Content-Type-Options: nosniff'], 'the head once, before the body');
  t.ok(src.state.returned, 'the reading is closed');
  t.same(res.misuse, []);
  t.equal(res.drain(10), true, 'a spurious writable event after the end finds nothing to write');
});

t.test('a client that leaves while a chunk waits stops the reading; nothing is written after', async (t) => {
  const src = source(4, 10);
  const res = new FakeResponse(5);
  const writer = new StreamWriter(res.asResponse());
  const ended = writer.run(head(res), await openStream(src.body));
  await settled();
  res.gone();
  writer.stop();
  t.same(await ended, { outcome: 'stopped', bytes: 0 });
  t.equal(src.state.pulls, 1, 'no chunk read past the one waiting');
  t.ok(src.state.returned, 'the reading is closed');
  t.same(res.misuse, []);
});

t.test('a client that leaves while a chunk is being read: that chunk is not written', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const src = source(3, 10);
  const res = new FakeResponse(1000);
  const writer = new StreamWriter(res.asResponse());
  const open = await openStream(src.body);
  const next = open.rest.next.bind(open.rest);
  const ended = writer.run(head(res), {
    ...open,
    rest: { ...open.rest, next: () => held.then(() => next()) },
  });
  await settled();
  res.gone();
  writer.stop();
  release();
  t.same(await ended, { outcome: 'stopped', bytes: 10 });
  t.ok(src.state.returned);
  t.same(res.misuse, []);
});

t.test('a chunk that cannot be read after the head cuts the connection', async (t) => {
  const src = source(3, 10, 1);
  const res = new FakeResponse(1000);
  const end = await new StreamWriter(res.asResponse()).run(head(res), await openStream(src.body));
  t.equal(end.outcome, 'failed');
  t.equal(end.bytes, 10);
  t.ok(res.closed, 'closed: the client sees a body shorter than announced');
  t.ok(src.state.returned);
  t.same(res.misuse, []);
});

t.test('the first chunk unreadable: openStream throws before anything is written', async (t) => {
  const src = source(3, 10, 0);
  await t.rejects(openStream(src.body), /chunk unreadable/);
  const long = new StreamedBody(5, source(1, 10).body.chunks);
  await t.rejects(openStream(long), /starts with a chunk of 10/, 'a chunk longer than the size');
});

t.test('HEAD: the head with the length, no body, the reading closed', async (t) => {
  const src = source(4, 10);
  const res = new FakeResponse(1000);
  const end = await new StreamWriter(res.asResponse()).run(head(res, true), await openStream(src.body));
  t.same(end, { outcome: 'done', bytes: 0 });
  t.same(res.head, ['200 OK', 'X-Content-Type-Options: nosniff', 'Content-Length: 40']);
  t.equal(res.body.length, 0);
  t.equal(src.state.pulls, 1);
  t.ok(src.state.returned);
  t.same(res.misuse, []);
});
