/**
 * Spec "Bus topics" and "Versioning" on a real `svc serve` over a real nats-server, read from the bus as a
 * peer would: an activation is published on `svc.config.revision_activated` with the write's revision and
 * epoch, the node's apply on `svc.config.revision_applied` with `status` and `applied_subsystems` (no
 * `error` when it applied), and as a `ConfigRevisionApplied` event on `svc.events.>`; health carries the
 * build's version and the applied epoch.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Subjects } from '../../bus/index.js';
import { RevisionApplied } from '../../schema/index.js';
import { startBusNode } from '../harness/bus-node.js';
import { root } from '../harness/child.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Loose = Record<string, unknown>;

t.test(
  'an activation and its apply are published on their config topics and as an event, health names the build',
  async (t) => {
    const { node, bus } = await startBusNode(t);
    const seen: { subject: string; body: Loose }[] = [];
    const decode = (data: Uint8Array) => JSON.parse(new TextDecoder().decode(data)) as Loose;
    for (const subject of [Subjects.config, Subjects.events]) {
      const sub = bus.subscribe(subject, (m) => seen.push({ subject: m.subject, body: decode(m.data) }));
      t.teardown(() => sub.stop());
    }

    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-summary': 'topics',
      },
      body: JSON.stringify({ name: 'Acme', timezone: 'UTC', roles: [{ name: 'Ada' }] }),
    });
    t.equal(put.status, 201, await put.clone().text());
    const { revision_id, epoch } = (await put.json()) as { revision_id: string; epoch: number };

    const on = (subject: string) => seen.filter((m) => m.subject === subject);
    const event = (m: { body: Loose }) => m.body['type'] === 'ConfigRevisionApplied';
    await until(
      async () => seen,
      (all) =>
        all.some((m) => m.subject === Subjects.configRevisionActivated) &&
        all.some((m) => m.subject === Subjects.configRevisionApplied) &&
        all.some(event),
      10_000,
    );
    t.match(on(Subjects.configRevisionActivated)[0]?.body, { revision_id, epoch });
    const applied = RevisionApplied.safeParse(on(Subjects.configRevisionApplied)[0]?.body);
    t.ok(applied.success, 'the apply record has its schema');
    if (applied.success) {
      t.match(applied.data, { revision_id, epoch, status: 'applied' });
      t.ok(applied.data.applied_subsystems.length > 0, 'names the subsystems it applied');
      t.notOk('error' in applied.data, 'no error on an apply that applied');
    }
    const record = seen.find(event)!;
    t.equal(record.subject, Subjects.event('ConfigRevisionApplied'));
    t.match(record.body, { category: 'system', failed: false });

    const health = (await (await fetch(`${node.url}/health`)).json()) as Loose;
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    t.equal(health['version'], pkg.version, "health's version is the running build's");
    await until(
      async () => ((await (await fetch(`${node.url}/health`)).json()) as Loose)['applied_epoch'],
      (e) => e === epoch,
      10_000,
    );
  },
);
