/**
 * A link to an item purged since (ops/work-tracker.md "Writes"): the item keeps it, read with `key` and
 * `status` null, and a PATCH that sends the links back as read, one added, is taken. The writer checked
 * every link's target, so the list a client had just read was refused (`no item "ENG-1"`) until it
 * dropped the link itself. A new link to a purged item is still refused.
 */
import t from 'tap';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const send = (url: string, body: unknown, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

t.test('the links an item holds are sent back as read though a target was purged', async (t) => {
  const w = await startWorkHarness(t);
  for (const title of ['Gone', 'Linked', 'Other'])
    t.equal((await send(`${w.base}/work`, { project: 'ENG', title })).status, 201);
  t.equal(
    (await send(`${w.base}/work/ENG-2`, { links: [{ kind: 'relates', item: 'ENG-1' }] }, 'PATCH')).status,
    200,
  );
  const purged = await send(`${w.base}/work/ENG-1/purge`, {
    confirm: 'ENG-1',
    project: 'ENG',
    reason: 'test',
  });
  t.equal(purged.status, 200, purged.text);

  const read = await call(`${w.base}/work/ENG-2`);
  const links = read.json?.['links'] as Json[];
  t.same(links, [{ kind: 'relates', item: 'ENG-1', id: null, key: null, status: null }], 'kept, dangling');

  const held = links.map((l) => ({ kind: l['kind'], item: l['item'] }));
  const added = await send(
    `${w.base}/work/ENG-2`,
    { links: [...held, { kind: 'blocks', item: 'ENG-3' }] },
    'PATCH',
  );
  t.equal(added.status, 200, added.text);
  t.match(
    added.json?.['item'],
    {
      links: [
        { item: 'ENG-1', key: null },
        { item: 'ENG-3', key: 'ENG-3' },
      ],
    },
    'the held link stays beside the new one',
  );

  const fresh = await send(`${w.base}/work/ENG-3`, { links: [{ kind: 'relates', item: 'ENG-1' }] }, 'PATCH');
  t.equal(fresh.status, 400, 'a new link to the purged item is still refused');
  t.match(fresh.json, { error: 'validation_error', problems: [{ path: 'links.0.item' }] });
  const kind = await send(
    `${w.base}/work/ENG-2`,
    { links: [...held, { kind: 'blocks', item: 'ENG-3' }, { kind: 'duplicates', item: 'ENG-1' }] },
    'PATCH',
  );
  t.equal(kind.status, 400, 'so is another kind of link to it');
  t.match(kind.json, { problems: [{ path: 'links.2.item' }] });
});
