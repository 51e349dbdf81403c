/**
 * A config apply in progress at a stop (SIGTERM) gets the drain's configured bound for work in progress,
 * `node.turn_grace_seconds`, as running turns do, not a constant of its own (ops/config.md, ops/deploy.md):
 * one still running when the grace ends is cut (`config_apply_cut`, `waited_ms` the grace), and one that
 * ends inside a grace longer than 5 s is recorded applied before the node exits. A `svc serve` child whose
 * apply waits on a tool server that holds its handshake.
 */
import t, { type Test } from 'tap';
import { call } from '../harness/api.js';
import { heldToolServer, type HeldToolServer } from '../harness/held-tool-server.js';
import { startNode, type ServedNode } from '../harness/serve-node.js';

const base = { name: 'Acme', roles: [{ name: 'Ada' }] };

/** A node with `turn_grace_seconds: grace`, its second revision's apply held on a tool server. */
async function holdingAnApply(t: Test, grace: number): Promise<{ node: ServedNode; tool: HeldToolServer }> {
  const node = await startNode(t, `node: {turn_grace_seconds: ${grace}}`);
  t.equal((await call(node.url, 'PUT', '/config', base)).status, 201);
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 1);
  const tool = await heldToolServer(t);
  const put = await call(node.url, 'PUT', '/config', {
    ...base,
    mcp_servers: [{ name: 'slow', url: tool.url }],
  });
  t.equal(put.status, 201);
  await tool.asked;
  return { node, tool };
}

t.test('an apply still running when the turns grace ends is cut at that grace', async (t) => {
  const { node } = await holdingAnApply(t, 2);
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0, 'a cut apply is no failed drain');
  t.match(
    node.run.lines.find((l) => l['event'] === 'config_apply_cut'),
    { epoch: 2, waited_ms: 2000 },
    'cut after the 2 s grace, not a separate bound',
  );
});

t.test('an apply that ends inside a grace longer than 5 s is recorded, not cut', async (t) => {
  const { node, tool } = await holdingAnApply(t, 15);
  node.run.kill('SIGTERM');
  await node.run.waitForLog((l) => l.msg === 'drain started');
  // The apply is slow, not stuck: it ends 6.5 s into the drain, inside the 15 s grace.
  const release = setTimeout(() => tool.release(), 6_500);
  t.teardown(() => clearTimeout(release));
  t.equal(await node.run.exited, 0, 'the drain ends cleanly');
  t.notOk(
    node.run.lines.some((l) => l['event'] === 'config_apply_cut'),
    'an apply that ended inside the grace is not cut',
  );
  t.ok(
    node.run.lines.some((l) => l.msg === 'config applied' && l['epoch'] === 2),
    'it is logged applied (its revision_applied stored) before the node exits',
  );
});
