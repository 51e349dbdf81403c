/**
 * `svc projections rebuild` on a JetStream node that is still running. The memory engine's store lock and the
 * embedded engine's server pid refuse a second process by themselves; on an external server nothing did, so
 * the rebuild wrote fresh checkpoints under the running node, which saves its own over them (the rebuild
 * undone, exit 0). It is refused naming the running process; once the node stops, the same rebuild runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort, runSvc } from '../harness/child.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

t.test(
  'projections rebuild is refused while the node runs on JetStream, and runs once it stops',
  async (t) => {
    const nats = await startNatsServer({ t });
    const dir = mkdtempSync(join(tmpdir(), 'svc-projections-js-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const storeDir = join(dir, 'data');
    const configFile = join(dir, 'config.yaml');
    const port = await freePort();
    writeFileSync(
      configFile,
      [
        `providers: {queue: {type: jetstream, url: "${nats.url}"}}`,
        `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
        `stream: {store_dir: ${storeDir}}`,
      ].join('\n'),
    );
    const node = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN });
    t.teardown(() => node.kill('SIGKILL'));
    await node.waitForLog((line) => line.msg === 'node serving');

    const refused = runSvc(['projections', 'rebuild', '--config', configFile]);
    t.teardown(() => refused.kill('SIGKILL'));
    t.equal(await refused.exited, 1, refused.stderr());
    t.equal(refused.stdout(), '', 'no projection was rebuilt');
    t.match(
      refused.stderr(),
      /^svc: node node-0 is running \(pid \d+.*\): stop it before svc projections rebuild\n$/m,
      'one line naming the running process',
    );
    t.notMatch(refused.stderr(), /^\s+at /m, 'not a stack trace');

    const listed = runSvc(['projections', 'list', '--config', configFile]);
    t.teardown(() => listed.kill('SIGKILL'));
    t.equal(await listed.exited, 0, `list only reads: ${listed.stderr()}`);

    node.kill('SIGTERM');
    t.equal(await node.exited, 0, 'the node drains');
    const rebuilt = runSvc(['projections', 'rebuild', 'events', '--config', configFile]);
    t.teardown(() => rebuilt.kill('SIGKILL'));
    t.equal(await rebuilt.exited, 0, rebuilt.stderr());
    t.match(JSON.parse(rebuilt.stdout()), { name: 'events', checkpoint: 'written' });
  },
);
