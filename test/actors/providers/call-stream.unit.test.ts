import t from 'tap';
import { streamFrom, type LlmDelta, type LlmResult } from '../../../actors/index.js';

const result: LlmResult = {
  text: 'hi',
  tool_calls: [],
  stop_reason: 'end_turn',
  raw_stop_reason: 'stop',
  usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
  model: 'm',
  provider: 'p',
  started_at: '2026-11-23T10:00:00.000Z',
  duration_ms: 1,
};

t.test('a caller may only await the result; the deltas are still there to iterate afterwards', async (t) => {
  const stream = streamFrom(async (emit) => {
    emit({ type: 'text', text: 'h' });
    await Promise.resolve();
    emit({ type: 'text', text: 'i' });
    return result;
  });
  t.equal((await stream.result()).text, 'hi');
  const seen: LlmDelta[] = [];
  for await (const d of stream) seen.push(d);
  t.same(seen, [
    { type: 'text', text: 'h' },
    { type: 'text', text: 'i' },
  ]);
});

t.test('a failure reaches both the iterator (after the deltas before it) and result()', async (t) => {
  const stream = streamFrom(async (emit) => {
    emit({ type: 'text', text: 'partial' });
    await Promise.resolve();
    throw new Error('boom');
  });
  const seen: LlmDelta[] = [];
  await t.rejects(async () => {
    for await (const d of stream) seen.push(d);
  }, /boom/);
  t.same(seen, [{ type: 'text', text: 'partial' }]);
  await t.rejects(stream.result(), /boom/);
});

t.test('two readers each see every delta', async (t) => {
  let finish: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (finish = resolve));
  const stream = streamFrom(async (emit) => {
    emit({ type: 'text', text: 'a' });
    await gate;
    emit({ type: 'text', text: 'b' });
    return result;
  });
  const read = async () => {
    const out: string[] = [];
    for await (const d of stream) if (d.type === 'text') out.push(d.text);
    return out;
  };
  const both = Promise.all([read(), read()]);
  finish();
  t.same(await both, [
    ['a', 'b'],
    ['a', 'b'],
  ]);
});
