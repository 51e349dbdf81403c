/**
 * Seat activity read from the fleet's lease table (spec "Seat kind and seat activity"): on an ingress node
 * that runs no seats, a seat a peer holds reads `idle`, then `working` while the peer runs its turn; once
 * no node holds it (the peer killed mid-turn, its lease expired) it reads `stopped` / `unplaced`: the turn
 * its events left open is worked by nobody.
 */
import t from 'tap';
import { ensureCatalogue, openBus } from '../../bus/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { localProviders } from '../fixtures/llm/providers.js';

type Row = { id: string; activity: string; stopped_reason: string | null };
const rowOf = async (node: FleetNode, id: string): Promise<Row | undefined> =>
  ((await (await fetch(`${node.url}/agents`)).json()) as Row[]).find((r) => r.id === id);
const reads = (node: FleetNode, activity: string, reason: string | null) =>
  until(
    () => rowOf(node, 'ada'),
    (r) => r?.activity === activity && r.stopped_reason === reason,
    30_000,
  );

t.test(
  'a seat a peer holds reads idle or working; a seat no node holds, even mid-turn, reads stopped / unplaced',
  async (t) => {
    const nats = await startNatsServer({ t });
    const llm = await startLlmServer({
      wire: 'openai',
      script: [
        { kind: 'text', text: '{"decision":"skip"}', hold: 'plan' },
        { kind: 'text', text: '{"decision":"skip"}', hold: 'never' },
      ],
    });
    t.teardown(() => llm.close());
    const front = await startFleetNode(t, 'node-front', nats.url, { node: 'roles: [ingress, data]' });
    const worker = await startFleetNode(t, 'node-seats', nats.url, { node: 'roles: [seats]' });
    const put = await fetch(`${front.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'fleet' },
      body: JSON.stringify({
        name: 'Acme',
        providers: localProviders(llm.baseUrl),
        roles: [{ name: 'Ada' }],
      }),
    });
    t.equal(put.status, 201);
    await worker.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');
    t.notOk(
      front.run.lines.some((l) => l.msg === 'seat spawned'),
      'the ingress node runs no seat',
    );

    t.ok(await reads(front, 'idle', null), 'held by the peer: idle');
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    await queueWake(bus, 'ada', mentionWake('Work on the peer'));
    await llm.waitForRequests(1);
    t.ok(await reads(front, 'working', null), 'the peer runs its turn: working');
    llm.release('plan');
    t.ok(await reads(front, 'idle', null), 'the turn ended: idle again');

    await queueWake(bus, 'ada', mentionWake('Work on the peer until it dies'));
    await llm.waitForRequests(2);
    t.ok(await reads(front, 'working', null), 'a second turn runs on the peer');
    worker.run.kill('SIGKILL');
    await worker.run.exited;
    t.ok(
      await reads(front, 'stopped', 'unplaced'),
      'no node holds it, its turn left open: stopped / unplaced, not working',
    );
  },
);
