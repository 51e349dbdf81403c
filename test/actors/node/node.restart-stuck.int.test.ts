/**
 * A node restarted stuck on its own epoch, whose boot apply is postponed (the revision record not readable
 * in time): the real node actor, config applier and alarm host on an in-process bus, run as `svc serve`
 * runs them (history replayed, boot apply awaited, alarms started, then settled once the facts are whole).
 * It reads `stuck` from the start, so the standing `apply_stuck` is neither cleared at the settle nor
 * raised again by the retry that fails; the retry that succeeds clears it once.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import {
  alarmedPosture,
  createApplier,
  executeWrite,
  readNodeHistory,
  startAlarms,
  type SubsystemApplier,
} from '../../../actors/index.js';
import { Streams, Subjects, type Bus } from '../../../bus/index.js';
import { readRevision, type ConfigView } from '../../../projections/index.js';
import { EventRecord } from '../../../schema/index.js';
import { calmFacts } from '../fixtures/alarm-facts.js';
import { followedConfig, nodeZero } from '../fixtures/config-node.js';
import { aConfigWrite, validAsSent } from '../fixtures/config-write.js';

const logger = pino({ level: 'silent' });
const dec = new TextDecoder();

/** One start of node-0: what node-wiring and subsystems-wiring do, with the record read and the apply held. */
async function startOnce(
  t: Test,
  bus: Bus,
  view: ConfigView,
  control: { readable: () => Promise<boolean>; fails: () => boolean },
) {
  const node = nodeZero(logger);
  node.send({ type: 'node.booted', history: await readNodeHistory(bus, 'node-0') });
  const bootPosture = node.view().posture;
  const toolServers: SubsystemApplier = {
    name: 'tool_servers',
    apply: () => (control.fails() ? Promise.reject(new Error('durable taken')) : Promise.resolve()),
  };
  const applier = createApplier({
    bus,
    nodeId: 'node-0',
    subsystems: [toolServers],
    node,
    logger,
    source: {
      active: () => view.state.active,
      revision: (id) => readRevision(view.state, id),
      untilStored: async (id) => (await control.readable()) && view.state.revisions.has(id),
    },
  });
  await applier.reconcile();
  const alarms = await startAlarms({
    bus,
    nodeId: 'node-0',
    logger,
    // As subsystems-wiring gathers the posture fact.
    facts: () => ({ ...calmFacts, posture: alarmedPosture(node.view()) }),
  });
  t.teardown(() => alarms.stop());
  return { node, applier, alarms, bootPosture };
}

t.test(
  'a node restarted stuck on its own epoch whose boot apply is postponed reads stuck and keeps its alarm standing',
  async (t) => {
    const { bus, coord, view } = await followedConfig(t, logger);
    await executeWrite({ bus, coord, logger, validate: validAsSent }, aConfigWrite({ name: 'Acme' }, null));
    t.ok(await view.until((s) => s.active?.epoch === 1, 30_000));
    const events = async (type: string): Promise<Array<Record<string, unknown>>> => {
      const out: Array<Record<string, unknown>> = [];
      for await (const m of bus.replay(Streams.Events, { subject: Subjects.event(type) }))
        out.push(EventRecord.parse(JSON.parse(dec.decode(m.data))).payload);
      return out;
    };
    const readable = () => Promise.resolve(true);

    // First start: epoch 1 applies.
    const first = await startOnce(t, bus, view, { readable, fails: () => false });
    t.match(first.node.view(), { phase: 'serving', posture: 'serve', appliedEpoch: 1 });
    await first.alarms.stop();
    // Second start: its own epoch fails (nothing to fall back to), the alarm is raised and kept.
    const second = await startOnce(t, bus, view, { readable, fails: () => true });
    t.match(second.node.view(), { phase: 'unconfigured', posture: 'stuck', appliedEpoch: 0 });
    second.alarms.settle();
    await second.alarms.stop();
    t.same(
      (await events('alarm_raised')).map((p) => p['alarm']),
      ['apply_stuck'],
    );

    // Third start: the history says stuck on epoch 1; the record is not readable in time at boot.
    let fails = true;
    let postponeNext = true;
    const third = await startOnce(t, bus, view, {
      readable: () => {
        const answer = !postponeNext;
        postponeNext = false;
        return Promise.resolve(answer);
      },
      fails: () => fails,
    });
    t.equal(third.bootPosture, 'stuck', 'stuck from the start, before any apply');
    t.match(third.node.view(), { phase: 'unconfigured', posture: 'stuck', appliedEpoch: 0 });
    t.match(third.node.health(), { status: 'unconfigured', posture: 'stuck', configured: false });
    // The read models are seeded: standing alarms that ended are cleared from now on.
    third.alarms.settle();
    t.same(third.alarms.summary(), { count: 1, worst: 'critical' }, 'apply_stuck stands after the settle');
    // The reconcile tick: the record is readable now and the apply fails again.
    await third.applier.reconcile();
    third.alarms.evaluate();
    t.match(third.node.view(), { posture: 'stuck' });
    t.same(third.alarms.summary(), { count: 1, worst: 'critical' });
    // The cause is gone: the next tick applies, the node serves and the alarm clears.
    fails = false;
    await third.applier.reconcile();
    third.alarms.evaluate();
    t.match(third.node.view(), { phase: 'serving', posture: 'serve', appliedEpoch: 1 });
    await third.alarms.stop();
    t.same(
      (await events('alarm_cleared')).map((p) => p['alarm']),
      ['apply_stuck'],
      'cleared once, when the apply succeeded: never while the node had not recovered',
    );
    t.same(
      (await events('alarm_raised')).map((p) => p['alarm']),
      ['apply_stuck'],
      'raised once across the restarts',
    );
  },
);
