import t from 'tap';
import { DedupWindow } from '../../bus/memory/dedup.js';

t.test('an id is a duplicate only inside its window, of its newest message', async (t) => {
  const ids = new DedupWindow();
  ids.record('a', 1, 1_000);
  t.equal(ids.seen('a', 1_500, 1_000), 1, 'inside the window: its sequence');
  t.equal(ids.seen('a', 2_000, 1_000), null, 'at the window’s end: stored again');
  t.equal(ids.seen('b', 1_500, 1_000), null, 'never seen');
  ids.record('a', 5, 2_000);
  t.equal(ids.seen('a', 2_500, 1_000), 5, 'stored again: the newest message');
});

t.test(
  'forgetting stops at the first id inside the window, even when an old id was stored again',
  async (t) => {
    const ids = new DedupWindow();
    ids.record('a', 1, 1_000);
    ids.record('b', 2, 2_000);
    ids.record('a', 3, 3_000);
    ids.record('c', 4, 4_000);
    t.equal(ids.forgetBefore(3_500), 3, 'b and the re-stored a are forgotten; the newest forgotten is 3');
    t.equal(ids.seen('a', 3_600, 10_000), null);
    t.equal(ids.seen('b', 3_600, 10_000), null);
    t.equal(ids.seen('c', 3_600, 10_000), 4, 'c is kept');
    t.equal(ids.forgetBefore(3_500), 0, 'nothing more to forget');
  },
);
