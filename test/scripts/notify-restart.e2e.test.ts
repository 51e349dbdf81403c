/**
 * Notifications owed across a node restart, on a running `svc serve` (memory queue, file store): a chat hook
 * that is down while events pile up behind a failing one gets each of them once the node is served again —
 * none lost, none doubled — whether the node was stopped (SIGTERM) or killed (SIGKILL) meanwhile.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { restartNode, startNode } from '../harness/serve-node.js';
import { deliverTrackerB, putNotifyCompany } from './fixtures/tracker-b-notify.js';

interface ChatHook {
  readonly url: string;
  /** The delivery ids of the texts answered 200, in arrival order. */
  readonly sent: string[];
  /** Requests answered 503 while down. */
  refused: number;
  down: boolean;
  until(test: () => boolean): Promise<void>;
}

async function chatHook(t: Test): Promise<ChatHook> {
  const waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  const hook: ChatHook = {
    url: '',
    sent: [],
    refused: 0,
    down: true,
    until: (test) => (test() ? Promise.resolve() : new Promise((resolve) => waiters.push({ test, resolve }))),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (hook.down) {
        hook.refused += 1;
        res.statusCode = 503;
      } else {
        const text = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string }).text;
        hook.sent.push(/owed-\d+/.exec(text)?.[0] ?? text);
      }
      res.end();
      for (const w of waiters.filter((w) => w.test())) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return Object.assign(hook, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T0/B0`,
  });
}

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  t.test(
    `notifications owed when the node is stopped (${signal}) are each sent once after it is served again`,
    async (t) => {
      const hook = await chatHook(t);
      const node = await startNode(t);
      const epoch = await putNotifyCompany(
        t,
        node.url,
        { type: 'chat', url: hook.url, events: ['webhook_received'] },
        'a channel for the operators',
      );
      await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
      for (let i = 0; i < 3; i += 1) t.equal(await deliverTrackerB(node.url, `owed-${i}`), 200);
      // The first is being retried (the hook is down); the two behind it wait.
      await node.run.waitForLog((l) => l['event'] === 'notification_retry');
      const again = await restartNode(t, node, node.run, signal);
      hook.down = false;
      await again.waitForLog((l) => l.msg === 'notification transport started');
      await hook.until(() => hook.sent.length >= 3);
      t.equal(await deliverTrackerB(node.url, 'owed-3'), 200);
      await hook.until(() => hook.sent.includes('owed-3'));
      t.same(hook.sent, ['owed-0', 'owed-1', 'owed-2', 'owed-3'], 'each owed event once, in order');
    },
  );
}
