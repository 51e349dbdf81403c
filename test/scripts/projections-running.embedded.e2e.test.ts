/**
 * `svc projections rebuild` on the embedded JetStream engine while its node runs, on built `svc` processes:
 * the embedded store's server pid refuses a second process in one line, which named the server and its
 * live parent but not what to do. It now says to stop that process first, as the memory engine's lock and
 * the external-JetStream refusal say; once the node stops, the same rebuild runs.
 */
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { startNode } from '../harness/serve-node.js';

t.test('projections rebuild beside a running embedded node says to stop it first', async (t) => {
  const node = await startNode(t, '', 'jetstream-embedded');
  const started = await node.run.waitForLog((line) => line.msg === 'embedded nats-server started');

  const refused = runSvc(['projections', 'rebuild', '--config', node.configFile]);
  t.teardown(() => refused.kill('SIGKILL'));
  t.equal(await refused.exited, 1, refused.stderr());
  const lines = refused.stderr().split('\n').filter(Boolean);
  t.equal(lines.length, 1, `one line: ${refused.stderr()}`);
  t.match(
    lines[0],
    new RegExp(
      `already served by nats-server pid ${String(started['pid'])} \\(started by the live process ${String(node.run.child.pid)}\\); stop that process first`,
    ),
  );
  t.notMatch(refused.stdout(), /"checkpoint"/, 'no projection was rebuilt');
  // The store takes one server, so even list (which only reads) cannot open it beside the node.
  const listed = runSvc(['projections', 'list', '--config', node.configFile]);
  t.teardown(() => listed.kill('SIGKILL'));
  t.equal(await listed.exited, 1, listed.stderr());
  t.match(listed.stderr(), /stop that process first/);

  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0, 'the node drains');
  const rebuilt = runSvc(['projections', 'rebuild', 'events', '--config', node.configFile]);
  t.teardown(() => rebuilt.kill('SIGKILL'));
  t.equal(await rebuilt.exited, 0, rebuilt.stderr());
  t.match(rebuilt.stdout(), /"name":"events".*"checkpoint":"written"/);
});
