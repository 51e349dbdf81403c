// /config preconditions: If-Match and If-None-Match on writes and reloads, alone and racing.
import t from 'tap';
import { company, firstRevision, json, startConfigNode, type Json } from './fixtures/config-node.js';

t.test(
  'preconditions: stale If-Match 409, If-None-Match * 412, both 400, If-Match with nothing active 412',
  async (t) => {
    const node = await startConfigNode(t);
    const noneActive = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-match': '*' },
    });
    t.equal(noneActive.status, 412);
    t.equal((await json(noneActive))['error'], 'no_active_revision');
    const created = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-none-match': '*' },
    });
    t.equal(created.status, 201, 'If-None-Match * creates when nothing is configured');
    const id = (await json(created))['revision_id'] as string;
    const again = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-none-match': '*' },
    });
    t.equal(again.status, 412);
    t.equal((await json(again))['error'], 'already_configured');
    const both = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-none-match': '*', 'if-match': `"${id}"` },
    });
    t.equal(both.status, 400);
    t.equal((await json(both))['error'], 'conflicting_preconditions');
    const ok = await node.call('PUT', '/config', {
      body: company('B'),
      headers: { 'x-summary': 's', 'if-match': id },
    });
    t.equal(ok.status, 201, 'a bare unquoted id is accepted');
    const stale = await node.call('PUT', '/config', {
      body: company('C'),
      headers: { 'x-summary': 's', 'if-match': `"${id}"` },
    });
    t.equal(stale.status, 409);
    const staleBody = await json(stale);
    t.equal(staleBody['error'], 'revision_advanced');
    const storedId = staleBody['stored_revision_id'] as string;
    t.match(storedId, /^[0-9a-f-]{36}$/, 'a stale If-Match names the revision it stored inactive');
    const kept = await json(await node.call('GET', `/config/revisions/${storedId}`));
    t.match(
      kept,
      { revision_id: storedId, is_active: false, parent_revision_id: id },
      'derived from what If-Match named',
    );
    const active = await node.call('GET', '/config');
    t.equal(
      active.headers.get('etag'),
      `"${(await json(ok))['revision_id'] as string}"`,
      'the active revision stays',
    );
  },
);

t.test(
  'twenty concurrent PUTs with the same If-Match: one 201, nineteen 409 naming their stored revision',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        node.call('PUT', '/config', {
          body: company(`Race ${i}`),
          headers: { 'x-summary': `w${i}`, 'if-match': `"${id}"` },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    t.equal(statuses.filter((s) => s === 201).length, 1);
    t.equal(statuses.filter((s) => s === 409).length, 19);
    const bodies = await Promise.all(answers.map(json));
    for (const body of bodies.filter((b) => b['error'] === 'revision_advanced' && b['stored_revision_id'])) {
      const stored = await node.call('GET', `/config/revisions/${String(body['stored_revision_id'])}`);
      t.equal(stored.status, 200, 'a losing revision is stored and readable');
    }
    const list = await json(await node.call('GET', '/config/revisions?limit=500'));
    t.equal(
      (list['revisions'] as Json[]).filter((r) => r['is_active']).length,
      1,
      'at most one active revision',
    );
  },
);

t.test('reload with If-Match on a node with no active revision answers 412', async (t) => {
  const node = await startConfigNode(t);
  const reload = await node.call('POST', '/config/reload', { headers: { 'if-match': '"r-1"' } });
  t.equal(reload.status, 412);
  t.equal((await json(reload))['error'], 'no_active_revision');
  t.equal((await node.call('POST', '/config/reload')).status, 409, 'without If-Match: 409');
});

t.test(
  "If-Match with nothing active: each route's 412 hint names what stores a first revision there, and it works",
  async (t) => {
    const node = await startConfigNode(t);
    const ifMatch = { 'x-summary': 's', 'if-match': '"r-1"' };
    // PATCH, an entity PUT and reload change the active revision: dropping If-Match there is a 409, so their
    // hint points at a first whole document, never at dropping the header.
    for (const [method, path, body] of [
      ['PATCH', '/config', { name: 'B' }],
      ['PUT', '/config/roles/ada', { name: 'Ada' }],
      ['POST', '/config/reload', undefined],
    ] as const) {
      const refused = await node.call(method, path, { ...(body ? { body } : {}), headers: ifMatch });
      t.equal(refused.status, 412, `${method} ${path}`);
      const answer = await json(refused);
      t.equal(answer['error'], 'no_active_revision');
      t.match(answer['hint'], /`PUT \/config`.*`If-None-Match: \*`/, `${method} ${path}: a first document`);
      t.notMatch(answer['hint'], /Drop `If-Match`/i, `${method} ${path}: not dropping If-Match`);
      const dropped = await node.call(method, path, {
        ...(body ? { body } : {}),
        headers: { 'x-summary': 's' },
      });
      t.equal(dropped.status, 409, `${method} ${path} without If-Match is still refused`);
    }
    const put = await node.call('PUT', '/config', { body: company(), headers: ifMatch });
    t.equal(put.status, 412);
    const hint = (await json(put))['hint'] as string;
    t.match(hint, /without `If-Match`.*`If-None-Match: \*`/, 'PUT /config: send it without If-Match');
    const created = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-none-match': '*' },
    });
    t.equal(created.status, 201, 'as the hint says, it is stored');
  },
);

t.test('an If-Match listing several tags proceeds when any one names the active revision', async (t) => {
  const node = await startConfigNode(t);
  const id = await firstRevision(node);
  const res = await node.call('PUT', '/config', {
    body: company('B'),
    headers: { 'x-summary': 's', 'if-match': `"other", "${id}"` },
  });
  t.equal(res.status, 201, 'RFC 9110 13.1.1: any listed tag may match');
  const patched = await node.call('PATCH', '/config', {
    body: { name: 'C' },
    headers: { 'x-summary': 's', 'if-match': `W/"x", "${(await json(res))['revision_id'] as string}"` },
  });
  t.equal(patched.status, 201, 'on a PATCH too');
});

t.test(
  'an If-Match naming none of the active revision (several tags, or only weak ones) is 409 revision_advanced with stored_revision_id null',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    for (const ifMatch of ['"a", "b"', `W/"${id}"`, `W/"${id}", W/"other"`]) {
      const res = await node.call('PUT', '/config', {
        body: company('B'),
        headers: { 'x-summary': 's', 'if-match': ifMatch },
      });
      t.equal(res.status, 409, ifMatch);
      const body = await json(res);
      t.equal(body['error'], 'revision_advanced', ifMatch);
      t.ok(Object.hasOwn(body, 'stored_revision_id'), `${ifMatch}: the field is carried`);
      t.equal(body['stored_revision_id'], null, ifMatch);
    }
    t.equal((await json(await node.call('GET', '/config/revisions')))['total'], 1, 'nothing was stored');
  },
);

t.test(
  'If-None-Match naming the active revision on a write is 412 already_configured; naming another proceeds',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    const refused = [
      ['PUT', '/config', company('B')],
      ['PATCH', '/config', { name: 'B' }],
      ['POST', '/config/reload', undefined],
    ] as const;
    for (const [method, path, body] of refused) {
      for (const tag of [`"${id}"`, `W/"${id}"`, `"other", "${id}"`]) {
        const res = await node.call(method, path, {
          ...(body === undefined ? {} : { body }),
          headers: { 'x-summary': 's', 'if-none-match': tag },
        });
        t.equal(res.status, 412, `${method} ${tag}`);
        t.equal((await json(res))['error'], 'already_configured', `${method} ${tag}`);
      }
    }
    t.equal((await json(await node.call('GET', '/config/revisions')))['total'], 1, 'nothing was stored');
    const other = await node.call('PUT', '/config', {
      body: company('B'),
      headers: { 'x-summary': 's', 'if-none-match': '"other"' },
    });
    t.equal(other.status, 201, 'a tag of no current revision lets the write proceed');
  },
);

t.test('a dry run with a stale If-Match is 409 revision_advanced with stored_revision_id null', async (t) => {
  const node = await startConfigNode(t);
  const id = await firstRevision(node);
  const moved = await node.call('PUT', '/config', {
    body: company('B'),
    headers: { 'x-summary': 's', 'if-match': id },
  });
  t.equal(moved.status, 201);
  for (const [method, path, body] of [
    ['PUT', '/config?dry_run=true', company('C')],
    ['PATCH', '/config?dry_run=true', { name: 'C' }],
  ] as const) {
    const res = await node.call(method, path, { body, headers: { 'if-match': `"${id}"` } });
    t.equal(res.status, 409, method);
    const answer = await json(res);
    t.equal(answer['error'], 'revision_advanced', method);
    t.ok(Object.hasOwn(answer, 'stored_revision_id'), `${method}: the field is carried`);
    t.equal(answer['stored_revision_id'], null, `${method}: a dry run stores nothing`);
  }
});

t.test(
  'concurrent create-only PUTs (If-None-Match *) on an unconfigured node: one 201, every other 412 already_configured',
  async (t) => {
    const node = await startConfigNode(t);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        node.call('PUT', '/config', {
          body: company(`Race ${i}`),
          headers: { 'x-summary': `w${i}`, 'if-none-match': '*' },
        }),
      ),
    );
    const bodies = await Promise.all(answers.map(json));
    const statuses = answers.map((a) => a.status);
    t.equal(statuses.filter((s) => s === 201).length, 1, 'exactly one creates');
    t.same(
      bodies.filter((_, i) => statuses[i] !== 201).map((b) => b['error']),
      Array.from({ length: 7 }, () => 'already_configured'),
      'the others are refused as create-only writes that met a configuration',
    );
    t.same(
      statuses.filter((s) => s !== 201),
      Array.from({ length: 7 }, () => 412),
    );
    const winner = bodies[statuses.indexOf(201)]!['revision_id'];
    t.equal(
      (await node.call('GET', '/config')).headers.get('etag'),
      `"${String(winner)}"`,
      'the winner is active',
    );
  },
);

t.test(
  'concurrent create-only entity PUTs (If-None-Match *) of one id: one 201, every other 412 entity_exists',
  async (t) => {
    const node = await startConfigNode(t);
    await firstRevision(node);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        node.call('PUT', '/config/mcp-servers/racer', {
          body: { name: 'racer', command: 'npx', args: [`racer-${i}`] },
          headers: { 'x-summary': `w${i}`, 'if-none-match': '*' },
        }),
      ),
    );
    const bodies = await Promise.all(answers.map(json));
    const statuses = answers.map((a) => a.status);
    t.equal(statuses.filter((s) => s === 201).length, 1, 'exactly one creates');
    t.same(
      bodies
        .filter((_, i) => statuses[i] !== 201)
        .map((b) => [answers[bodies.indexOf(b)]!.status, b['error']]),
      Array.from({ length: 7 }, () => [412, 'entity_exists']),
      'the others find the entry the winner created',
    );
    const winner = bodies[statuses.indexOf(201)]!['revision_id'];
    t.equal(
      (await node.call('GET', '/config')).headers.get('etag'),
      `"${String(winner)}"`,
      'the winner is active',
    );
  },
);
