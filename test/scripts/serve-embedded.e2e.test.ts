import { existsSync } from 'node:fs';
import t from 'tap';
import { freePort } from '../harness/child.js';
import { orphanNats, running, untilGone } from '../harness/orphan-nats.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { bootNode, startChild, storeDir } from '../harness/serve-store.js';
import { isAlive } from '../harness/proc.js';

t.test(
  'jetstream-embedded: the node starts nats-server with its store under store_dir and stops it on shutdown',
  async (t) => {
    const node = await startNode(t, '', 'jetstream-embedded');
    const started = await node.run.waitForLog((line) => line.msg === 'embedded nats-server started');
    const pid = started['pid'] as number;
    t.ok(isAlive(pid), 'nats-server runs');
    t.ok(existsSync(`${node.dir}/data`), 'its store lives under stream.store_dir');
    const health = (await (await fetch(`${node.url}/health`)).json()) as Record<string, unknown>;
    t.equal(health['queue'], 'jetstream-embedded');
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'first' },
      body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }] }),
    });
    t.equal(put.status, 201, 'configuration is stored on the embedded JetStream');
    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0);
    t.notOk(isAlive(pid), 'nats-server is stopped with the node');
  },
);

t.test('jetstream-embedded: a node killed with SIGKILL takes its nats-server with it', async (t) => {
  const node = await startNode(t, '', 'jetstream-embedded');
  const started = await node.run.waitForLog((line) => line.msg === 'embedded nats-server started');
  const pid = started['pid'] as number;
  t.teardown(() => {
    if (running(pid)) process.kill(pid, 'SIGKILL');
  });
  t.ok(running(pid), 'nats-server runs');
  node.run.kill('SIGKILL');
  await node.run.exited;
  // The parent-death signal is the only thing that stops it: nobody else signals this pid.
  await untilGone(pid);
  t.notOk(running(pid), 'nats-server died with its node');
});

t.test(
  'jetstream-embedded: a restart on a store a killed node left served starts at once and keeps the data',
  async (t) => {
    const store = storeDir(t, 'jetstream-embedded');
    const first = await bootNode(t, store, '');
    const put = await first.call('PUT', '/config', {
      headers: { 'content-type': 'application/json', 'x-summary': 'first' },
      body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }] }),
    });
    t.equal(put.status, 201, 'configuration stored');
    t.equal(await first.stop(), 0);
    // What a node killed before its server could follow it leaves: its server still on the store.
    const orphan = await orphanNats(t, store.storeDir);

    const second = await bootNode(t, store, '');
    const stopped = await second.run.waitForLog((l) => l.msg === 'stale embedded nats-server stopped');
    t.equal(stopped['pid'], orphan.pid, 'the orphan was stopped by pid');
    const found = await second.run.waitForLog(
      (l) => l.msg === 'stale embedded nats-server found; stopping it',
    );
    t.ok(
      (stopped['time'] as number) - (found['time'] as number) < 10_000,
      'SIGTERM sufficed: the start did not wait for the SIGKILL bound',
    );
    await orphan.exited;
    t.notOk(running(orphan.pid), 'the orphan is gone');
    const doc = (await (await second.call('GET', '/config')).json()) as Record<string, unknown>;
    t.equal(doc['name'], 'Acme', 'the configuration written before is still there');
    t.equal(await second.stop(), 0);
  },
);

t.test('jetstream-embedded: a second node on the store of a live node is refused', async (t) => {
  const store = storeDir(t, 'jetstream-embedded');
  const first = await bootNode(t, store, '');
  const started = await first.run.waitForLog((line) => line.msg === 'embedded nats-server started');
  const second = startChild(t, store, '', {}, await freePort());
  t.not(await second.exited, 0, 'the second node exits with an error');
  t.match(second.stdout() + second.stderr(), /already served by nats-server pid/);
  t.ok(running(started['pid'] as number), "the live node's server is untouched");
  t.equal((await first.call('GET', '/health')).status, 200, 'the first node still serves');
  t.equal(await first.stop(), 0);
});
