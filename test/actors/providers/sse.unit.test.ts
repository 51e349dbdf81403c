import t from 'tap';
import { parseSse, type SseEvent } from '../../../actors/index.js';

async function parse(chunks: string[]): Promise<SseEvent[]> {
  const encoder = new TextEncoder();
  async function* body() {
    for (const c of chunks) yield encoder.encode(c);
  }
  const out: SseEvent[] = [];
  for await (const e of parseSse(body())) out.push(e);
  return out;
}

t.test('events are split on blank lines, with names and multi-line data', async (t) => {
  t.same(await parse(['event: message_start\ndata: {"a":1}\n\n', 'data: one\ndata: two\n\n']), [
    { event: 'message_start', data: '{"a":1}' },
    { event: 'message', data: 'one\ntwo' },
  ]);
});

t.test('CRLF and CR line ends work, even when a CRLF is split across chunks', async (t) => {
  t.same(await parse(['data: a\r', '\n\r', '\ndata: b\r\r']), [
    { event: 'message', data: 'a' },
    { event: 'message', data: 'b' },
  ]);
});

t.test('comments and other fields are ignored; a field without a space keeps its value', async (t) => {
  t.same(await parse([': keep-alive\n\nid: 7\nretry: 10\ndata:x\n\n']), [{ event: 'message', data: 'x' }]);
});

t.test('a multi-byte character split across chunks is decoded whole', async (t) => {
  const bytes = new TextEncoder().encode('data: Grüße\n\n');
  async function* body() {
    yield bytes.slice(0, 9);
    yield bytes.slice(9);
  }
  const out: SseEvent[] = [];
  for await (const e of parseSse(body())) out.push(e);
  t.same(out, [{ event: 'message', data: 'Grüße' }]);
});

t.test('an event left unterminated at the end is dropped', async (t) => {
  t.same(await parse(['data: complete\n\ndata: cut']), [{ event: 'message', data: 'complete' }]);
});
