/**
 * Revision activation by every writing gesture on a served node (spec "Revision activation"): PUT, PATCH,
 * entity PUT, reload and revert each store a revision that becomes the one active revision, names the
 * revision it replaced as its parent, advances the epoch by one, and is applied by the node.
 */
import t from 'tap';
import { call, type Json } from '../harness/api.js';
import { startNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

t.test('every activating write names its parent, advances the epoch by one and is applied', async (t) => {
  const node = await startNode(t);
  const first = await call(node.url, 'PUT', '/config', {
    name: 'Acme',
    mission: 'one',
    roles: [{ name: 'Ada' }],
  });
  t.equal(first.status, 201);
  const firstId = String(first.body['revision_id']);
  let active = firstId;
  let epoch = 1;
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 1);

  const gestures: Array<[string, string, Json | undefined]> = [
    ['PUT', '/config', { name: 'Acme', mission: 'two', roles: [{ name: 'Ada' }] }],
    ['PATCH', '/config', { mission: 'three' }],
    ['PUT', '/config/roles/ada', { name: 'Ada', goal: 'Ship.' }],
    ['POST', '/config/reload', undefined],
    ['POST', `/config/revisions/${firstId}/revert`, undefined],
  ];
  for (const [method, path, body] of gestures) {
    const answer = await call(node.url, method, path, body);
    t.equal(answer.status, 201, `${method} ${path} activates`);
    t.equal(answer.body['epoch'], epoch + 1, `${method} ${path}: the epoch advances by one`);
    const id = String(answer.body['revision_id']);
    const stored = await call(node.url, 'GET', `/config/revisions/${id}`);
    t.match(stored.body, { is_active: true, parent_revision_id: active }, `${method} ${path}: its parent`);
    t.match(
      (await call(node.url, 'GET', `/config/revisions/${active}`)).body,
      { is_active: false },
      `${method} ${path}: the parent is deactivated`,
    );
    const listed = (await call(node.url, 'GET', '/config/revisions')).body['revisions'] as Json[];
    t.same(
      listed.filter((r) => r['is_active'] === true).map((r) => r['revision_id']),
      [id],
      'one active revision',
    );
    active = id;
    epoch += 1;
    // The node's health says it applied the epoch (the apply's log line comes just before).
    const want = epoch;
    const health = await until(
      async () => (await call(node.url, 'GET', '/health')).body,
      (h) => h['applied_epoch'] === want,
      10_000,
    );
    t.match(health, { applied_epoch: epoch, status: 'ok' }, `${method} ${path}: applied`);
  }
  const reverted = (await call(node.url, 'GET', '/config')).body;
  t.equal(reverted['mission'], 'one', 'the revert activated the older payload');
});
