/**
 * One history (issue #15): racing config writers on a 3-server JetStream cluster, each node following
 * SVC_CONFIG live; afterwards a fresh replay from zero and every live node report the same activation
 * history — which revisions were activated, at which epoch, and when — and it is the writers' own record
 * of what they won. One node's writer pauses between winning an epoch and announcing it (as a busy or
 * stalled process does), so its announcement lands after a newer epoch's.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { configSubjects, executeWrite, readActive } from '../../actors/index.js';
import { type Bus, type PublishOptions } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { activationHistory, listRevisions, type ConfigView } from '../../projections/index.js';
import { ActivePointer, type ConfigWrite } from '../../schema/index.js';
import { startNatsCluster } from '../harness/nats-server.js';
import { followedConfig, type FollowedConfig } from './fixtures/config-node.js';
import { aConfigWrite, validAsSent } from './fixtures/config-write.js';

const logger = pino({ level: 'silent' });
const dec = new TextDecoder();
/** A write of the document named `name` with If-Match on `basis` (If-None-Match: * when there is none). */
const write = (name: string, basis: string | null): ConfigWrite =>
  aConfigWrite({ name }, basis, {
    precondition: basis ? { if_none_match_any: false, if_match: basis } : { if_none_match_any: true },
    summary: name,
  });

/**
 * Holds the paused node's activation announcements until another node announces a newer epoch, and
 * counts those that then land late (after a newer epoch's announcement).
 */
class AnnouncementGate {
  private held: Array<{ epoch: number; go: () => void }> = [];
  private opened = false;
  newest = 0;
  late = 0;

  hold(epoch: number): Promise<void> {
    if (this.opened) return Promise.resolve();
    return new Promise((go) => this.held.push({ epoch, go }));
  }

  announced(epoch: number): void {
    this.newest = Math.max(this.newest, epoch);
    for (const entry of this.held.filter((h) => h.epoch < epoch)) entry.go();
    this.held = this.held.filter((h) => h.epoch >= epoch);
  }

  open(): void {
    this.opened = true;
    for (const entry of this.held) entry.go();
    this.held = [];
  }
}

const epochOf = (data: Uint8Array): number => ActivePointer.parse(JSON.parse(dec.decode(data))).epoch;

/** The real bus; only its activation announcements go through `onAnnounce` first. */
function announcingThrough(
  bus: Bus,
  onAnnounce: (epoch: number, publish: () => Promise<void>) => Promise<void>,
): Bus {
  return new Proxy(bus, {
    get(target, prop, receiver) {
      if (prop !== 'publish') {
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return async (subject: string, data: Uint8Array, opts?: PublishOptions) => {
        if (subject !== configSubjects.revisionActivated) return target.publish(subject, data, opts);
        let ack: Awaited<ReturnType<Bus['publish']>> | undefined;
        await onAnnounce(epochOf(data), async () => {
          ack = await target.publish(subject, data, opts);
        });
        if (!ack) throw new Error('announcement not published');
        return ack;
      };
    },
  });
}

type Node = FollowedConfig;

const startNode = (t: Test, bus: Bus): Promise<Node> => followedConfig(t, logger, bus);

const history = (view: ConfigView) =>
  activationHistory(view.state).map(({ epoch, revision_id }) => ({ epoch, revision_id }));

t.test(
  'racing writers through three nodes: a fresh replay and every live node report one activation history',
  async (t) => {
    const cluster = await startNatsCluster(3, { t });
    const buses: Bus[] = [];
    t.teardown(() => Promise.all(buses.map((bus) => bus.close())));
    const open = async (i: number): Promise<Bus> => {
      const bus = await openJetStreamBus({ url: cluster.urls[i % 3] as string, replicas: 3 });
      buses.push(bus);
      return bus;
    };
    const gate = new AnnouncementGate();
    const paused = announcingThrough(await open(0), async (epoch, publish) => {
      await gate.hold(epoch);
      if (epoch < gate.newest) gate.late += 1;
      await publish();
    });
    const prompt = (bus: Bus) =>
      announcingThrough(bus, async (epoch, publish) => {
        await publish();
        gate.announced(epoch);
      });
    const nodes = [
      await startNode(t, paused),
      await startNode(t, prompt(await open(1))),
      await startNode(t, prompt(await open(2))),
    ];
    const won = new Map<number, string>();
    const run = async (node: Node, command: ConfigWrite): Promise<void> => {
      const reply = await executeWrite(
        { bus: node.bus, coord: node.coord, logger, validate: validAsSent },
        command,
      );
      if (reply.outcome === 'stored') won.set(reply.epoch, reply.revision_id);
    };

    // 1. node 0 wins epoch 1 and stalls before announcing; node 1 builds epoch 2 on it meanwhile
    const first = run(nodes[0]!, write('first', null));
    t.ok(
      await nodes[1]!.view.until((s) => s.active?.epoch === 1, 10_000),
      'node 1 sees epoch 1 in the store',
    );
    await run(nodes[1]!, write('second', nodes[1]!.view.state.active?.revision_id ?? null));
    await first;
    t.ok(gate.late >= 1, 'the stalled writer announced epoch 1 after epoch 2 was announced');

    // 2. twelve writers race, each reading the pointer and writing on it as an `If-Match` PUT does
    const writer = async (node: Node, w: number): Promise<void> => {
      for (let round = 0; round < 5; round += 1) {
        const basis = (await readActive(node.coord))?.pointer.revision_id ?? null;
        await run(node, write(`w${w}.r${round}`, basis));
      }
    };
    const racing = (n: number) => Array.from({ length: 4 }, (_, w) => writer(nodes[n]!, n * 4 + w));
    const stalled = Promise.all(racing(0));
    await Promise.all([...racing(1), ...racing(2)]);
    gate.open();
    await stalled;
    t.comment(`${won.size} activations; ${gate.late} announcements landed after a newer epoch's`);

    const epochs = [...won.keys()].sort((a, b) => a - b);
    t.same(
      epochs,
      epochs.map((_, i) => i + 1),
      'the winners hold every epoch from 1, once',
    );
    const expected = epochs.map((epoch) => ({ epoch, revision_id: won.get(epoch) }));
    for (const [i, node] of nodes.entries()) {
      t.ok(
        await node.view.until((s) => activationHistory(s).length === expected.length, 10_000),
        `live node ${i} has seen every activation`,
      );
    }
    const fresh = await startNode(t, await open(1));
    t.same(history(fresh.view), expected, 'a fresh replay from zero reports what the writers won');
    const full = activationHistory(fresh.view.state);
    for (const [i, node] of nodes.entries()) {
      t.same(
        activationHistory(node.view.state),
        full,
        `live node ${i} agrees with the replay, times included`,
      );
      t.same(
        listRevisions(node.view.state, { limit: 500, offset: 0 }),
        listRevisions(fresh.view.state, { limit: 500, offset: 0 }),
        `live node ${i} lists the revisions as the replay does`,
      );
    }
  },
);

t.test('an activation whose announcement was lost is announced by the next writer', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  // The first writer wins epoch 1 in the store, then loses its connection before announcing it.
  const lossy = announcingThrough(bus, () => Promise.reject(new Error('connection lost')));
  const live = await startNode(t, bus);
  const a = await startNode(t, lossy);
  await t.rejects(
    executeWrite({ bus: lossy, coord: a.coord, logger, validate: validAsSent }, write('a', null)),
    'the first writer does not know it won',
  );
  t.ok(await live.view.until((s) => s.active?.epoch === 1, 30_000), 'the store holds epoch 1');
  const firstId = live.view.state.active?.revision_id ?? null;
  const reply = await executeWrite(
    { bus, coord: live.coord, logger, validate: validAsSent },
    write('b', firstId),
  );
  t.match(reply, { outcome: 'stored', epoch: 2 });
  const fresh = await startNode(t, bus);
  t.same(
    history(fresh.view),
    [
      { epoch: 1, revision_id: firstId },
      { epoch: 2, revision_id: reply.outcome === 'stored' ? reply.revision_id : '' },
    ],
    'a replay from zero finds both activations',
  );
  t.same(
    activationHistory(fresh.view.state),
    activationHistory(live.view.state),
    'and agrees with the live node',
  );
});
