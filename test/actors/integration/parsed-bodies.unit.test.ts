/**
 * The parses a node's receivers hand to its routing: taken once, only for the very bytes parsed, dropped
 * when the append was a duplicate, and bounded in count, bytes and age so entries routed by another node
 * (or never routed) do not pile up.
 */
import t from 'tap';
import { ParsedBodies } from '../../../actors/integration/index.js';

const bytes = (text: string): Buffer => Buffer.from(text);

t.test('a kept parse is taken once, for equal bytes in another buffer', async (t) => {
  const kept = new ParsedBodies();
  const json = { a: 1 };
  kept.keep('k', bytes('{"a":1}'), json);
  t.equal(kept.take('k', new Uint8Array(bytes('{"a":1}'))), json);
  t.equal(kept.take('k', bytes('{"a":1}')), undefined, 'gone once taken');
  t.equal(kept.take('nothing', bytes('{}')), undefined);
});

t.test('other bytes under the key are never answered with its parse, and drop it', async (t) => {
  const kept = new ParsedBodies();
  kept.keep('k', bytes('{"a":1}'), { a: 1 });
  t.equal(kept.take('k', bytes('{"a":2}')), undefined);
  t.equal(kept.take('k', bytes('{"a":1}')), undefined, 'dropped by the mismatch');
});

t.test('forget drops only the entry kept with that very body', async (t) => {
  const kept = new ParsedBodies();
  const first = bytes('{"a":1}');
  const repeat = bytes('{"a":1}');
  kept.keep('k', first, 'first');
  kept.keep('k', repeat, 'repeat');
  kept.forget('k', first);
  t.equal(kept.take('k', first), 'repeat', 'a later keep of the key is not forgotten for an earlier body');
  kept.keep('k', first, 'first');
  kept.forget('k', first);
  t.equal(kept.take('k', first), undefined);
});

t.test(
  'entries are bounded: oldest out past the count, the bytes or the age; large bodies never kept',
  async (t) => {
    let now = 0;
    const kept = new ParsedBodies(() => now);
    for (let i = 0; i < 2100; i++) kept.keep(`k${i}`, bytes(`${i}`), i);
    t.equal(kept.take('k0', bytes('0')), undefined, 'the oldest went past 2048 entries');
    t.equal(kept.take('k2099', bytes('2099')), 2099);
    const big = Buffer.alloc(1024 * 1024 + 1, 32);
    kept.keep('big', big, 'big');
    t.equal(kept.take('big', big), undefined, 'over 1 MiB is parsed again instead');
    const mib = Buffer.alloc(1024 * 1024, 32);
    for (let i = 0; i < 9; i++) kept.keep(`m${i}`, mib, i);
    t.equal(kept.take('m0', mib), undefined, 'past 8 MiB the oldest goes');
    t.equal(kept.take('m8', mib), 8);
    kept.keep('old', bytes('1'), 'old');
    now += 10_001;
    kept.keep('new', bytes('2'), 'new');
    t.equal(kept.take('old', bytes('1')), undefined, 'older than 10 s when another is kept');
    t.equal(kept.take('new', bytes('2')), 'new');
  },
);
