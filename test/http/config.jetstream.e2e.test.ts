import t from 'tap';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { company, startConfigNode } from './fixtures/config-node.js';

t.test(
  'two nodes on one JetStream: twenty concurrent PUTs with the same If-Match, split across them, give one 201',
  async (t) => {
    const server = await startNatsServer({ t });
    const busA = await openJetStreamBus({ url: server.url });
    const busB = await openJetStreamBus({ url: server.url });
    t.teardown(async () => {
      await busA.close();
      await busB.close();
    });
    const a = await startConfigNode(t, { bus: busA });
    const b = await startConfigNode(t, { bus: busB });
    const first = await a.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } });
    t.equal(first.status, 201);
    const id = ((await first.json()) as { revision_id: string }).revision_id;
    t.ok(
      await b.configuration.view.until((s) => s.active?.revision_id === id, 30_000),
      'the other node sees the activation',
    );

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).call('PUT', '/config', {
          body: company(`Race ${i}`),
          headers: { 'x-summary': `w${i}`, 'if-match': `"${id}"` },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    t.equal(statuses.filter((s) => s === 201).length, 1, 'exactly one write activates');
    t.equal(statuses.filter((s) => s === 409).length, 19, 'the rest answer 409 revision_advanced');
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<Record<string, unknown>>;
    const winner = bodies.find((body) => typeof body['epoch'] === 'number') as {
      revision_id: string;
      epoch: number;
    };
    t.equal(winner.epoch, 2);
    for (const node of [a, b]) {
      t.ok(
        await node.configuration.view.until((s) => s.active?.revision_id === winner.revision_id, 30_000),
        'both nodes agree on the winner',
      );
    }
    const stored = bodies.flatMap((body) =>
      typeof body['stored_revision_id'] === 'string' ? [body['stored_revision_id']] : [],
    );
    t.ok(
      await b.configuration.view.until((s) => stored.every((rev) => s.revisions.has(rev)), 30_000),
      'every losing revision is stored and readable on both nodes',
    );
  },
);
