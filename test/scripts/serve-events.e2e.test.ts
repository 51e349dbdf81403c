import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { serveAgain, startNode, TOKEN } from '../harness/serve-node.js';
import { dashboard } from '../http/fixtures/events-node.js';

t.test(
  'svc serve replays the events projection before it binds and serves the feed, snapshot and stream',
  async (t) => {
    const node = await startNode(t);
    const ready = node.run.lines.findIndex(
      (l) => l.msg === 'projection ready' && l['projection'] === 'events',
    );
    const listening = node.run.lines.findIndex((l) => l.msg === 'gateway listening');
    t.ok(ready >= 0 && ready < listening, 'the projection is ready before the listener binds');

    const list = (await (await fetch(`${node.url}/events`)).json()) as Record<string, unknown>;
    t.match(list, {
      rows: [],
      exhausted: true,
      next: null,
      coverage: { nodes: [{ answered: true }], complete: true },
    });
    const snapshot = (await (await fetch(`${node.url}/stream/snapshot`)).json()) as Record<string, unknown>;
    t.same(Object.keys(snapshot), [
      'health',
      'agents',
      'events',
      'sandboxes',
      'tools',
      'org',
      'tokens',
      'budget',
      'schedules',
    ]);
    t.match(snapshot['health'], { clients: 0, seeded_from: { complete: true } });
    t.equal((await fetch(`${node.url}/ws/stream`)).status, 426);
    t.equal((await fetch(`${node.url}/query/events`)).status, 200);
    t.equal(
      (await fetch(`${node.url}/query/config_audit`, { headers: { authorization: `Bearer ${TOKEN}` } }))
        .status,
      200,
    );

    const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
    t.equal((await d.next(() => true)).kind, 'snapshot');
    const health = (await (await fetch(`${node.url}/health`)).json()) as Record<string, unknown>;
    t.equal(health['clients'], 1, 'clients counts connected dashboards');
    d.client.close();
    await d.client.closed;

    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0, 'drains cleanly with the stream open before');
    t.ok(
      existsSync(join(node.dir, 'data', 'projections.sqlite')),
      'the checkpoint lives under stream.store_dir',
    );

    const again = await serveAgain(t, node);
    const line = await again.waitForLog((l) => l.msg === 'projection ready' && l['projection'] === 'events');
    t.equal(line['from'], 'zero', 'an empty history wrote no checkpoint to resume from');
    again.kill('SIGTERM');
    t.equal(await again.exited, 0);
  },
);
