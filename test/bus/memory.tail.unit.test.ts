import t from 'tap';
import type { StoredMessage } from '../../bus/bus.js';
import { Tail } from '../../bus/memory/tail.js';

const message = (seq: number, bytes = 10): StoredMessage => ({
  stream: 'S',
  seq,
  subject: `s.${seq}`,
  time: new Date(0),
  headers: {},
  data: new Uint8Array(bytes),
});

const seqs = (page: StoredMessage[] | undefined): number[] | undefined => page?.map((m) => m.seq);

t.test('the tail answers pages it reaches and defers older ones to the database', async (t) => {
  const tail = new Tail();
  t.equal(tail.page(1, 10, 10), undefined, 'an empty tail answers nothing');
  for (let seq = 5; seq <= 9; seq++) tail.push(message(seq));
  t.same(seqs(tail.page(5, 9, 10)), [5, 6, 7, 8, 9]);
  t.same(seqs(tail.page(7, 9, 2)), [7, 8], 'the limit holds');
  t.same(seqs(tail.page(6, 7, 10)), [6, 7], 'the upper bound holds');
  t.same(seqs(tail.page(10, 12, 10)), [], 'past the newest: nothing new');
  t.equal(tail.page(4, 9, 10), undefined, 'before the oldest kept: the database answers');
  t.equal(tail.get(4), undefined);
  t.equal(tail.get(7)?.seq, 7);
});

t.test('a removed message is skipped by pages and read as gone', async (t) => {
  const tail = new Tail();
  for (let seq = 1; seq <= 5; seq++) tail.push(message(seq));
  tail.remove(3);
  tail.remove(99);
  t.same(seqs(tail.page(1, 5, 10)), [1, 2, 4, 5]);
  t.equal(tail.get(3), null);
});

t.test('a gap in sequences starts the tail anew', async (t) => {
  const tail = new Tail();
  tail.push(message(1));
  tail.push(message(2));
  tail.push(message(7));
  t.equal(tail.page(1, 7, 10), undefined, 'the older messages are no longer claimed');
  t.same(seqs(tail.page(7, 7, 10)), [7]);
});

t.test('the tail keeps a bounded number of messages and bytes', async (t) => {
  const tail = new Tail();
  for (let seq = 1; seq <= 20_000; seq++) tail.push(message(seq));
  t.equal(tail.get(20_000 - 8192), undefined, 'the oldest beyond the count bound are dropped');
  t.equal(tail.get(20_000 - 8191)?.seq, 20_000 - 8191);
  t.same(seqs(tail.page(19_999, 20_000, 10)), [19_999, 20_000]);

  const big = new Tail();
  for (let seq = 1; seq <= 400; seq++) big.push(message(seq, 60 * 1024));
  t.equal(big.get(127), undefined, 'at most 16 MiB of bodies are kept');
  t.equal(big.get(400 - 272)?.seq, 400 - 272);
});

t.test('a large message is not kept: the tail starts again after it', async (t) => {
  const tail = new Tail();
  tail.push(message(1));
  tail.push(message(2));
  tail.push(message(3, 200 * 1024));
  t.equal(tail.get(3), undefined, 'the large one is read from the database');
  t.equal(tail.get(2), undefined, 'so is what came before it');
  t.equal(tail.page(1, 3, 10), undefined);
  tail.push(message(4));
  t.equal(tail.page(3, 4, 10), undefined, 'a page reaching back to it is the database’s');
  t.same(seqs(tail.page(4, 4, 10)), [4], 'what follows is kept');
});
