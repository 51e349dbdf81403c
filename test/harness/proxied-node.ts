/**
 * A configured `svc serve` child (node-a, one human seat) that reaches its nats-server through a TCP proxy,
 * so a test can cut its link to the bus (`proxy.blackhole()`, `proxy.cut()`) and restore it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, runSvc, type SvcChild } from './child.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';
import { TOKEN } from './serve-node.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

interface Teardown {
  teardown(fn: () => unknown): void;
  equal(found: unknown, wanted: unknown, message: string): void;
}

export interface ProxiedNode {
  readonly server: NatsServerHandle;
  readonly proxy: TcpProxy;
  readonly run: SvcChild;
  readonly url: string;
}

export async function startProxiedNode(t: Teardown, dirPrefix: string): Promise<ProxiedNode> {
  const server = await startNatsServer({ t });
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port }, { scheme: 'nats', t });
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      `providers: {queue: {type: jetstream, url: "${proxy.url}"}}`,
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      'node: {id: node-a}',
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((line) => line.msg === 'node serving');
  const url = `http://127.0.0.1:${port}`;
  const put = await fetch(`${url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'one' },
    body: JSON.stringify({
      name: 'Acme',
      roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
    }),
  });
  t.equal(put.status, 201, 'configured');
  return { server, proxy, run, url };
}
