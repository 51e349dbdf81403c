import t from 'tap';
import { PagesIndex } from '../../projections/pages/pages.index.js';

const page = (id: string, title: string, body = '') => ({ id, container: 'ENG', title, body });
const ids = (index: PagesIndex, q: string, opts: Parameters<PagesIndex['search']>[1] = { limit: 50 }) =>
  index.search(q.split(' '), opts).hits.map((h) => h.page_id);

t.test('a page written again is found by its new words only, once', async (t) => {
  const index = new PagesIndex();
  t.teardown(() => index.close());
  index.upsert(page('p1', 'Runbook', 'restart the queue'));
  index.upsert(page('p2', 'Runbook two', 'restart the cache'));
  index.upsert(page('p1', 'Runbook', 'drain the queue'));
  t.same(ids(index, 'restart'), ['p2'], 'the old words of p1 are gone');
  t.same(ids(index, 'drain'), ['p1']);
  t.same([...index.matching(['Runbook'])].sort(), ['p1', 'p2'], 'one row per page');
});

t.test(
  'a removed page is found no more, and removing it again or an unknown page changes nothing',
  async (t) => {
    const index = new PagesIndex();
    t.teardown(() => index.close());
    index.upsert(page('p1', 'Alpha', 'shared words'));
    index.upsert(page('p2', 'Beta', 'shared words'));
    index.remove('p1');
    index.remove('p1');
    index.remove('nope');
    t.same(ids(index, 'shared'), ['p2']);
    index.upsert(page('p1', 'Alpha', 'shared words'));
    t.same(ids(index, 'shared').sort(), ['p1', 'p2'], 'a page created again under its id is found');
  },
);

t.test('a cursor continues after its page, and after a page removed since by the score it had', async (t) => {
  const index = new PagesIndex();
  t.teardown(() => index.close());
  for (let i = 0; i < 6; i++) index.upsert(page(`p${i}`, `Page ${i}`, `common ${'extra '.repeat(i)}`));
  const all = index.search(['common'], { limit: 50 }).hits;
  const first = index.search(['common'], { limit: 3 });
  t.equal(first.more, true);
  const third = first.hits[2]!;
  const rest = ids(index, 'common', { limit: 50, after: { score: third.score, id: third.page_id } });
  t.same(
    rest,
    all.slice(3).map((h) => h.page_id),
    'the next page starts where the first ended',
  );
  index.remove(third.page_id);
  const afterRemoved = ids(index, 'common', { limit: 50, after: { score: third.score, id: third.page_id } });
  t.same(
    afterRemoved,
    all.slice(3).map((h) => h.page_id),
    'placed by the score it had',
  );
});
