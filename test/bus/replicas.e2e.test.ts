/**
 * `svc serve` refuses at start, exit 1, a replica count its bus cannot keep: the problem text names the
 * key, the server and why (the same path an operator's node takes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { startNatsServer } from '../harness/nats-server.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-replicas-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const configFile = (name: string, text: string): string => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

t.test('replicas 3 against a single nats-server: serve exits 1 naming the server and the fix', async (t) => {
  const server = await startNatsServer({ t });
  const file = configFile(
    'single.yaml',
    `providers: {queue: {type: jetstream, url: "${server.url}", replicas: 3}}\napi: {port: 0}\n`,
  );
  const run = runSvc(['serve', '--config', file]);
  t.teardown(() => run.kill('SIGKILL'));
  t.equal(await run.exited, 1);
  t.match(
    run.stderr(),
    /svc: providers\.queue\.replicas is 3, but the NATS server at nats:\/\/127\.0\.0\.1:\d+ \(\S+\) is not part of a cluster: a single server keeps one copy; run a cluster of at least 3 JetStream servers \(ops\/jetstream\.md\) or lower providers\.queue\.replicas/,
  );
});

t.test('replicas 3 with the memory engine is a Tier A problem, exit 1', async (t) => {
  const file = configFile('memory.yaml', 'providers: {queue: {type: memory, replicas: 3}}\napi: {port: 0}\n');
  const run = runSvc(['serve', '--config', file]);
  t.teardown(() => run.kill('SIGKILL'));
  t.equal(await run.exited, 1);
  t.match(run.stderr(), /providers\.queue\.replicas: must be 1 when providers\.queue\.type is memory/);
});
