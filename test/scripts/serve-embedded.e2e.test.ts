import { existsSync } from 'node:fs';
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

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
