/**
 * A drain while the bus is unreachable (JetStream engine, the link cut through a TCP proxy): every step that
 * talks to the bus is bounded, so the node exits in bounded time, logging what it could not finish, and a
 * drain that left steps unfinished exits non-zero.
 */
import t from 'tap';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';

t.test('a drain with the bus cut exits in bounded time, non-zero, naming what it left', async (t) => {
  const server = await startNatsServer({ t });
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port }, { scheme: 'nats', t });
  const { run } = await startFleetNode(t, 'node-a', proxy.url);

  // The link is cut: open connections end and new ones are swallowed.
  proxy.blackhole();
  proxy.cut();
  await run.waitForLog((l) => l.msg.startsWith('alarm raised') && l['alarm'] === 'bus_unreachable');
  const stoppedAt = Date.now();
  run.kill('SIGTERM');
  const code = await Promise.race([
    run.exited,
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000).unref()),
  ]);
  t.not(code, 'still running', `the node exited within 30 s (${Date.now() - stoppedAt} ms)`);
  t.not(code, 0, 'a drain that could not finish exits non-zero');
  const unfinished = run.lines.filter((l) => l['event'] === 'drain_step_unfinished').map((l) => l['step']);
  t.ok(unfinished.length > 0, `each step left is logged: ${unfinished.join(', ')}`);
  t.ok(
    run.lines.some((l) => l.msg === 'drain failed'),
    'the drain says it failed',
  );
});
