/**
 * A node killed outright (SIGKILL) after applies rebuilds its actors from the store on restart: the node
 * its history from its own apply announcements (the same applied epoch on `/health`), and the revisions
 * their lifecycle from SVC_CONFIG (the same revision statuses, the same per-node applies).
 */
import t from 'tap';
import type { LogLine, SvcChild } from '../harness/child.js';
import { call, health, type Json } from '../harness/api.js';
import { serveAgain, startNode } from '../harness/serve-node.js';

async function put(url: string, body: unknown): Promise<{ revision_id: string; epoch: number }> {
  const res = await call(url, 'PUT', '/config', body);
  if (res.status !== 201) throw new Error(`PUT /config answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as unknown as { revision_id: string; epoch: number };
}

/** The `/health` answer once `applied_epoch` reaches `epoch`: the apply's outcome recorded first. */
async function appliedAt(run: SvcChild, url: string, epoch: number): Promise<Json> {
  await run.waitForLog((line) => line.msg === 'config applied' && line['epoch'] === epoch);
  return healthAt(url, epoch);
}

/** `/health` once it shows `epoch` (it is rebuilt per 100 ms tick, so it may trail the log); the last one read after 10 s. */
async function healthAt(url: string, epoch: number): Promise<Json> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const read = await health(url);
    if (read['applied_epoch'] === epoch || Date.now() > deadline) return read;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const revisionTable = async (url: string): Promise<unknown> => {
  const { body } = await call(url, 'GET', '/config/revisions');
  return (body['revisions'] as Json[]).map((r) => [r['revision_id'], r['is_active'], r['activated_at']]);
};

const replayed = (line: LogLine): boolean => line.msg === 'revisions replayed';

t.test('a node killed after an apply comes back with the same node and revision states', async (t) => {
  const node = await startNode(t, 'node: {id: node-r}');
  const first = await put(node.url, {
    name: 'Acme',
    roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
  });
  await appliedAt(node.run, node.url, first.epoch);
  const second = await put(node.url, {
    name: 'Acme',
    mission: 'two',
    roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
  });
  const before = await appliedAt(node.run, node.url, second.epoch);
  t.match(before, { status: 'ok', posture: 'serve', applied_epoch: 2 });
  const tableBefore = await revisionTable(node.url);

  node.run.kill('SIGKILL');
  await node.run.exited;

  // Both replays are logged before the node serves, and the child keeps every line it logged.
  const again = await serveAgain(t, node);
  const history = await again.waitForLog((line) => line.msg === 'node history replayed');
  t.match(history, { applied_epoch: 2, failed_epoch: null }, 'the node read its own announcements back');
  const revisions = await again.waitForLog(replayed);
  t.match(
    revisions,
    { revisions: 2, active_revision_id: second.revision_id, applied_on: { 'node-r': 'applied' } },
    'the revisions replayed from SVC_CONFIG: the second active and applied on this node',
  );
  const after = await healthAt(node.url, before['applied_epoch'] as number);
  t.match(after, {
    status: 'ok',
    configured: true,
    posture: 'serve',
    applied_epoch: before['applied_epoch'],
  });
  t.same(await revisionTable(node.url), tableBefore, 'the revision table reads the same');
});
