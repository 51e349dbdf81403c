import { randomUUID } from 'node:crypto';
// /config/revisions: listing and paging, diffs, revert and reload, and revisions this node cannot read.
import { Subjects } from '../../bus/index.js';
import { pino } from 'pino';
import t from 'tap';
import { company, firstRevision, json, startConfigNode, type Json } from './fixtures/config-node.js';

t.test(
  'revisions list newest first; one revision, a redacted diff, references, revert and reload',
  async (t) => {
    const node = await startConfigNode(t);
    const a = await firstRevision(node, { ...company(), mission: 'one' });
    const b = (
      await json(
        await node.call('PUT', '/config', {
          body: { ...company(), mission: 'two' },
          headers: { 'x-summary': 'two' },
        }),
      )
    )['revision_id'] as string;
    const list = await json(await node.call('GET', '/config/revisions'));
    t.same(
      (list['revisions'] as Json[]).map((r) => r['revision_id']),
      [b, a],
    );
    t.notOk(
      (list['revisions'] as Json[]).some((r) => 'payload' in r),
      'metadata only',
    );
    t.equal((await node.call('GET', '/config/revisions/00000000-0000-4000-8000-000000000000')).status, 404);
    const diff = await json(await node.call('GET', `/config/revisions/${a}/diff`));
    t.match(diff, {
      from: b,
      to: a,
      changes_total: 1,
      changes: [{ path: 'mission', kind: 'changed', from: 'two', to: 'one' }],
    });
    const refs = await json(await node.call('GET', '/config/references'));
    t.match(refs, { revision_id: b, references: [{ name: 'ANTHROPIC_KEY' }] });
    const revert = await node.call('POST', `/config/revisions/${a}/revert`, {
      headers: { 'x-summary': 'back' },
    });
    t.equal(revert.status, 201);
    t.equal((await json(await node.call('GET', '/config')))['mission'], 'one');
    const reload = await node.call('POST', '/config/reload');
    t.equal(reload.status, 201);
    t.equal((await json(reload))['epoch'], 4);
  },
);

t.test(
  '/config/revisions refuses a limit or offset it cannot read or that is out of range, naming it',
  async (t) => {
    const node = await startConfigNode(t);
    for (let i = 0; i < 3; i += 1) {
      await node.call('PUT', '/config', { body: company(`Acme ${i}`), headers: { 'x-summary': `s${i}` } });
    }
    for (const [query, name] of [
      ['limit=abc', 'limit'],
      ['limit=0x1', 'limit'],
      ['limit=1e0', 'limit'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=2.5', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1e0', 'offset'],
      ['offset=lots', 'offset'],
    ] as const) {
      const res = await node.call('GET', `/config/revisions?${query}`);
      t.equal(res.status, 400, query);
      const body = await json(res);
      t.equal(body['error'], 'bad_params', query);
      t.match(body['detail'], new RegExp(`^\`${name}\` must be an integer from`), `${query}: names ${name}`);
    }
    const page = await json(await node.call('GET', '/config/revisions?limit=500&offset=1'));
    t.match(page, { limit: 500, offset: 1, total: 3 });
    t.same(
      (page['revisions'] as Json[]).map((r) => r['summary']),
      ['s1', 's0'],
    );
    t.match(await json(await node.call('GET', '/config/revisions?limit=&offset=')), { limit: 50, offset: 0 });
  },
);

t.test('reload and revert check the node own Tier A: a native tracker needs stream.store_dir', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const node = await startConfigNode(t, { tierA: 'tracker: {backend: native}', logger });
  t.match(
    lines.find((l) => l['event'] === 'tier_a_unrunnable'),
    { problems: [/stream\.store_dir/] },
    'said at start, before any reload meets it',
  );
  await firstRevision(node);
  const reload = await node.call('POST', '/config/reload');
  t.equal(reload.status, 400);
  t.match(await json(reload), {
    error: 'validation_error',
    problems: [{ path: 'stream.store_dir', kind: 'missing' }],
  });
});

t.test(
  'a revision sealed under a key this node lacks reads as an opaque marker and cannot be reverted to',
  async (t) => {
    const node = await startConfigNode(t);
    await firstRevision(node);
    const sealedId = '00000000-0000-4000-8000-00000000beef';
    const record = {
      revision_id: sealedId,
      parent_revision_id: null,
      created_at: new Date().toISOString(),
      created_by: 'other-node',
      created_by_kind: 'node',
      source: 'api',
      summary: 'sealed elsewhere',
      payload: { __encrypted__: 'enc:v1:k-gone:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    };
    await node.bus.publish(Subjects.configRevisionStored, new TextEncoder().encode(JSON.stringify(record)));
    t.ok(await node.configuration.view.until((s) => s.revisions.has(sealedId), 30_000));
    const read = await json(await node.call('GET', `/config/revisions/${sealedId}`));
    t.same(read['payload'], { encrypted: true, key_id: 'k-gone' });
    const revert = await node.call('POST', `/config/revisions/${sealedId}/revert`, {
      headers: { 'x-summary': 'back' },
    });
    t.equal(revert.status, 409);
    t.equal((await json(revert))['error'], 'unreadable_revision');
  },
);

t.test(
  'reload takes dry_run as revert does: a dry run stores nothing, another value is refused',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    const dry = await node.call('POST', '/config/reload?dry_run=true');
    t.equal(dry.status, 200);
    t.match(await json(dry), { valid: true, base_revision_id: id });
    const bad = await node.call('POST', '/config/reload?dry_run=maybe');
    t.equal(bad.status, 400);
    t.equal((await json(bad))['error'], 'invalid_query');
    const revisions = (await json(await node.call('GET', '/config/revisions')))['revisions'] as Json[];
    t.same(
      revisions.map((r) => r['revision_id']),
      [id],
      'neither stored a revision',
    );
    t.equal((await node.call('GET', '/config')).headers.get('etag'), `"${id}"`, 'the active revision stays');
    const real = await node.call('POST', '/config/reload?dry_run=false');
    t.equal(real.status, 201, 'dry_run=false reloads');
  },
);

t.test('a revision diff lists at most 500 changes and counts them all in changes_total', async (t) => {
  const node = await startConfigNode(t);
  const variables = (value: string) =>
    Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`v${i}`, `${value}${i}`]));
  await firstRevision(node, { ...company(), skill_variables: variables('a') });
  const put = await node.call('PUT', '/config', {
    body: { ...company(), skill_variables: variables('b') },
    headers: { 'x-summary': 'variables' },
  });
  t.equal(put.status, 201);
  const to = (await json(put))['revision_id'] as string;
  const revisions = (await json(await node.call('GET', '/config/revisions')))['revisions'] as Json[];
  const from = revisions[1]?.['revision_id'] as string;
  const diff = await json(await node.call('GET', `/config/revisions/${to}/diff?against=${from}`));
  t.equal((diff['changes'] as Json[]).length, 500);
  t.equal(diff['changes_total'], 600);
  const unknown = await node.call('GET', `/config/revisions/${to}/diff?against=${randomUUID()}`);
  t.equal(unknown.status, 404);
  t.match(
    await json(unknown),
    { error: 'not_found', hint: /\?against=/ },
    'the hint points at the query, not the path',
  );
});

t.test(
  'one revision read: its ETag changes when it stops being active, and If-None-Match answers 304',
  async (t) => {
    const node = await startConfigNode(t);
    const first = await firstRevision(node);
    const read = (tag?: string) =>
      node.call(
        'GET',
        `/config/revisions/${first}`,
        tag === undefined ? {} : { headers: { 'if-none-match': tag } },
      );
    const active = await read();
    t.equal(active.status, 200);
    const activeTag = active.headers.get('etag')!;
    t.equal(activeTag, `"${first}"`, 'while active, the tag is the one GET /config sends');
    const same = await read(activeTag);
    t.equal(same.status, 304, 'unchanged: 304');
    t.equal(same.headers.get('etag'), activeTag);

    await node.call('PUT', '/config', { body: company('Next'), headers: { 'x-summary': 'next' } });
    const superseded = await read(activeTag);
    t.equal(superseded.status, 200, 'the answer changed (is_active), so the old tag does not match');
    t.match(await json(superseded), { is_active: false, activated_at: String });
    const supersededTag = superseded.headers.get('etag')!;
    t.not(supersededTag, activeTag);
    t.equal((await read(supersededTag)).status, 304);
    t.equal((await read(`W/${supersededTag}, "other"`)).status, 304, 'a weak tag in a list matches too');

    // A write naming the superseded revision's tag is stale, exactly as naming its id.
    const stale = await node.call('PUT', '/config', {
      body: company('Late'),
      headers: { 'x-summary': 'late', 'if-match': supersededTag },
    });
    t.equal(stale.status, 409);
    const refusal = await json(stale);
    t.match(refusal, { error: 'revision_advanced', stored_revision_id: String });
    const kept = await json(
      await node.call('GET', `/config/revisions/${refusal['stored_revision_id'] as string}`),
    );
    t.equal(kept['parent_revision_id'], first, 'stored with the revision it named as parent');
  },
);
