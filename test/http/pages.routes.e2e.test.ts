import t from 'tap';
import { CI } from './fixtures/gateway-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';

type Json = Record<string, unknown>;

t.test('a page is created, read by id and by CONTAINER/Title, and listed in its container', async (t) => {
  const n = await startPagesNode(t);
  const created = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'Getting  Started', body: 'Install the tools.' },
  });
  t.equal(created.status, 201, JSON.stringify(created.json));
  const page = created.json['page'] as Json;
  t.equal(page['title'], 'Getting  Started');
  t.equal(page['version'], 1);
  t.same(
    page['created_by'],
    { kind: 'person', id: 'ada-ops', name: 'Ada Ops' },
    'recorded as the bound person',
  );
  t.equal(created.json['repeated'], false);
  t.type(created.json['op_id'], 'string', 'a write without an op_id is given one');

  const byId = await n.call('GET', `/pages/${String(page['id'])}`, { auth: null });
  t.equal(byId.status, 200, 'reads are open');
  t.equal(byId.headers.get('etag'), '"1"');
  t.equal(byId.json['body'], 'Install the tools.');
  const byTitle = await n.call(
    'GET',
    `/pages/${encodeURIComponent('eng')}/${encodeURIComponent('getting started ')}`,
  );
  t.equal(byTitle.status, 200, 'container and title match ignoring case and whitespace runs');
  t.equal(byTitle.json['id'], page['id']);

  const list = await n.call('GET', '/pages?container=ENG');
  t.equal(list.status, 200);
  t.equal(list.json['total'], 1);
  t.equal((list.json['pages'] as Json[])[0]!['title'], 'Getting  Started');
  const other = await n.call('GET', '/pages?container=SALES');
  t.same(other.json['pages'], [], 'another container holds none');
});

t.test('children and breadcrumb follow the parent chain; parent=root lists the top level', async (t) => {
  const n = await startPagesNode(t);
  const make = async (title: string, parent?: string) => {
    const r = await n.call('POST', '/pages', {
      body: { container: 'ENG', title, ...(parent ? { parent } : {}) },
    });
    t.equal(r.status, 201, `${title}: ${JSON.stringify(r.json)}`);
    return (r.json['page'] as Json)['id'] as string;
  };
  const root = await make('Handbook');
  const mid = await make('Onboarding', 'ENG/Handbook');
  const leaf = await make('Day One', mid);
  const detail = await n.call('GET', `/pages/${leaf}`);
  t.same(detail.json['breadcrumb'], [
    { id: root, title: 'Handbook' },
    { id: mid, title: 'Onboarding' },
  ]);
  const top = await n.call('GET', `/pages/${root}`);
  t.same(top.json['children'], [{ id: mid, title: 'Onboarding' }]);
  const rootList = await n.call('GET', '/pages?parent=root');
  t.same(
    (rootList.json['pages'] as Json[]).map((p) => p['id']),
    [root],
  );
  const under = await n.call('GET', `/pages?parent=${mid}`);
  t.same(
    (under.json['pages'] as Json[]).map((p) => p['id']),
    [leaf],
  );

  const cycle = await n.call('PATCH', `/pages/${root}`, { body: { parent: leaf } });
  t.equal(cycle.status, 409);
  t.equal(cycle.json['error'], 'page_parent_invalid', 'a page cannot move below itself');
  const busy = await n.call('DELETE', `/pages/${mid}`);
  t.equal(busy.status, 409);
  t.equal(busy.json['error'], 'page_has_children');
  t.equal((await n.call('DELETE', `/pages/${leaf}`)).status, 200);
  t.equal((await n.call('DELETE', `/pages/${mid}`)).status, 200, 'deletable once childless');
  const gone = await n.call('GET', `/pages/${mid}`);
  t.equal(gone.status, 404);
  t.equal(gone.json['error'], 'not_found');
});

t.test('updates keep revision metadata; a stale version or a taken title is refused 409', async (t) => {
  const n = await startPagesNode(t);
  const a = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Runbook', body: 'v1' } });
  const id = (a.json['page'] as Json)['id'] as string;
  await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Other' } });
  const edit = await n.call('PATCH', `/pages/${id}`, {
    body: { body: 'v2' },
    headers: { 'if-match': '"1"' },
    auth: CI,
  });
  t.equal(edit.status, 200, JSON.stringify(edit.json));
  const page = edit.json['page'] as Json;
  t.equal(page['version'], 2);
  t.same(page['updated_by'], { kind: 'operator', id: 'ci', name: null }, 'an unbound token writes as itself');
  t.same(
    (page['revisions'] as Json[]).map((r) => [r['version'], r['changed']]),
    [
      [2, ['body']],
      [1, ['created']],
    ],
  );
  for (const tag of ['W/"2"', '*']) {
    const weak = await n.call('PATCH', `/pages/${id}`, {
      body: { body: 'v3' },
      headers: { 'if-match': tag },
    });
    t.match(weak, { status: 400, json: { error: 'bad_params' } }, `If-Match ${tag} matches no version`);
  }
  const stale = await n.call('PATCH', `/pages/${id}`, { body: { body: 'v3', base_version: 1 } });
  t.equal(stale.status, 409);
  t.equal(stale.json['error'], 'page_conflict');
  const taken = await n.call('PATCH', `/pages/${id}`, { body: { title: '  other ' } });
  t.equal(taken.status, 409);
  t.equal(taken.json['error'], 'page_title_taken');
  t.match(taken.json['detail'], /already has a page titled "Other"/, 'the title as it is held, not as sent');
  const dup = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'RUNBOOK' } });
  t.equal(dup.status, 409);
  t.equal(dup.json['error'], 'page_title_taken');
  const sameTitleElsewhere = await n.call('POST', '/pages', {
    body: { container: 'SALES', title: 'Runbook' },
  });
  t.equal(sameTitleElsewhere.status, 201, 'titles are unique per container only');
});

t.test('comments are added in order, as the caller', async (t) => {
  const n = await startPagesNode(t);
  await n.call('POST', '/pages', { body: { container: 'HANDBOOK', title: 'Leave policy' } });
  const c1 = await n.call('POST', '/pages/HANDBOOK/Leave%20policy/comments', { body: { body: 'First' } });
  t.equal(c1.status, 201, JSON.stringify(c1.json));
  t.type(c1.json['comment_id'], 'string');
  await n.call('POST', '/pages/HANDBOOK/Leave%20policy/comments', { body: { body: 'Second' }, auth: CI });
  const page = await n.call('GET', '/pages/HANDBOOK/leave%20policy');
  const comments = page.json['comments'] as Json[];
  t.same(
    comments.map((c) => c['body']),
    ['First', 'Second'],
  );
  t.equal((comments[0]!['by'] as Json)['id'], 'ada-ops');
  const empty = await n.call('POST', '/pages/HANDBOOK/Leave%20policy/comments', { body: { body: '  ' } });
  t.equal(empty.status, 400);
  t.equal(empty.json['error'], 'invalid_body');
  const nowhere = await n.call('POST', '/pages/HANDBOOK/Nope/comments', { body: { body: 'x' } });
  t.equal(nowhere.status, 404);
  t.equal(nowhere.json['error'], 'not_found');
});

t.test('/containers lists the declared containers with page counts and chart_epoch', async (t) => {
  const n = await startPagesNode(t);
  await n.call('POST', '/pages', { body: { container: 'ENG', title: 'A' } });
  await n.call('POST', '/pages', { body: { container: 'ENG', title: 'B' } });
  const r = await n.call('GET', '/containers', { auth: null });
  t.equal(r.status, 200);
  t.equal(r.json['chart_epoch'], 3);
  t.same(
    (r.json['containers'] as Json[]).map((c) => [c['key'], c['kind'], c['unit'], c['pages']]),
    [
      ['ENG', 'unit', 'Engineering', 2],
      ['SALES', 'unit', 'Sales', 0],
      ['HANDBOOK', 'org', null, 0],
    ],
  );
  // A container the chart no longer declares still lists while it holds pages.
  n.chart.document = { name: 'Acme', units: [] };
  const after = await n.call('GET', '/containers');
  t.same(
    (after.json['containers'] as Json[]).map((c) => [c['key'], c['declared'], c['pages']]),
    [['ENG', false, 2]],
  );
  const refused = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'C' } });
  t.equal(refused.status, 404, 'no new page in an undeclared container');
  t.equal(refused.json['error'], 'no_container');
});

t.test('bad parameters and bodies are refused with spec-shaped errors', async (t) => {
  const n = await startPagesNode(t);
  for (const [path, code] of [
    ['/pages?limit=0', 'bad_params'],
    ['/pages?limit=201', 'bad_params'],
    ['/pages?limit=x', 'bad_params'],
    ['/pages?cursor=-1', 'bad_params'],
    ['/pages?q=%20%2B%2B', 'bad_params'],
    ['/pages?container=NOPE', 'no_container'],
    ['/pages?parent=ENG/Missing', 'not_found'],
    ['/pages/does-not-exist', 'not_found'],
  ] as const) {
    const r = await n.call('GET', path);
    t.equal(r.json['error'], code, path);
    t.type(r.json['detail'], 'string');
    t.type(r.json['hint'], 'string');
  }
  const notJson = await n.call('POST', '/pages', { body: '{oops' });
  t.equal(notJson.status, 400);
  t.equal(notJson.json['error'], 'invalid_body');
  const unknown = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'x', colour: 'red' } });
  t.equal(unknown.json['error'], 'invalid_body');
  t.equal((unknown.json['problems'] as Json[])[0]!['kind'], 'unknown_field');
  const tooLong = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'x'.repeat(256) } });
  t.equal(tooLong.json['error'], 'invalid_body', 'a title over 255 characters');
  const anonymous = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'x' }, auth: null });
  t.equal(anonymous.status, 401, 'writes need a token');
  const stray = await n.call('POST', '/pages/ENG/x', { body: {} });
  t.equal(stray.status, 405, 'a POST under /pages/ serves only /pages/{id}/comments');
  t.equal(stray.json['error'], 'method_not_allowed');
  t.equal(stray.headers.get('allow'), 'GET, PATCH, DELETE');
});

t.test('listing pages through a cursor; search ranks and narrows by container', async (t) => {
  const n = await startPagesNode(t);
  for (const title of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'])
    await n.call('POST', '/pages', { body: { container: 'SALES', title, body: `about ${title}` } });
  const seen: string[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page = await n.call('GET', `/pages?container=SALES&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...(page.json['pages'] as Json[]).map((p) => p['title'] as string));
    cursor = page.json['next_cursor'] as string | null;
  }
  t.same(seen, ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
  const hit = await n.call('GET', '/pages?q=charlie');
  t.equal(hit.json['order'], 'relevance');
  t.same(
    (hit.json['pages'] as Json[]).map((p) => p['title']),
    ['Charlie'],
  );
  t.match((hit.json['pages'] as Json[])[0]!['snippet'], /\[Charlie\]/);
  const elsewhere = await n.call('GET', '/pages?q=charlie&container=ENG');
  t.same(elsewhere.json['pages'], []);
});
