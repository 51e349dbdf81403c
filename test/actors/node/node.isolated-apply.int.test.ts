/**
 * A node serving `isolated` (an apply failed and rolled back) reads `wait` while a later apply runs: the real
 * node actor, config applier and alarm host on an in-process bus, with the facts gathered as subsystems-wiring
 * gathers them. `apply_isolated` clears only when an apply succeeds, never while one merely runs, so a later
 * apply that fails too raises nothing new; nor does a drain clear it (the restart takes it up). So too
 * `apply_stuck` on a serving node whose rollback failed.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import {
  alarmedPosture,
  createApplier,
  executeWrite,
  startAlarms,
  type SubsystemApplier,
} from '../../../actors/index.js';
import { Streams, Subjects } from '../../../bus/index.js';
import { EventRecord } from '../../../schema/index.js';
import { calmFacts } from '../fixtures/alarm-facts.js';
import { followedConfig, nodeZero, revisionsOf } from '../fixtures/config-node.js';
import { aConfigWrite, validAsSent } from '../fixtures/config-write.js';

const logger = pino({ level: 'silent' });
const dec = new TextDecoder();

/**
 * node-0 serving `isolated` on epoch 1 (epoch 2 failed and rolled back; `stuck` when the rollback failed too),
 * its alarm raised; the next apply is held until the test ends it.
 */
async function divergedNode(t: Test, posture: 'isolated' | 'stuck' = 'isolated') {
  const { bus, coord, view } = await followedConfig(t, logger);
  let basis: string | null = null;
  const activate = async (name: string): Promise<number> => {
    const reply = await executeWrite(
      { bus, coord, logger, validate: validAsSent },
      aConfigWrite({ name }, basis),
    );
    if (reply.outcome !== 'stored') throw new Error(`write not stored: ${reply.outcome}`);
    basis = reply.revision_id;
    t.ok(await view.until((s) => s.active?.epoch === reply.epoch, 30_000));
    return reply.epoch;
  };
  const node = nodeZero(logger);
  node.send({ type: 'node.booted' });
  /** The tool servers' apply: entered (`started`), then released by the test, failing or not. */
  let fails = false;
  let hold: Promise<void> = Promise.resolve();
  let started = (): void => undefined;
  const toolServers: SubsystemApplier = {
    name: 'tool_servers',
    apply: async () => {
      started();
      await hold;
      if (fails) throw new Error('durable taken');
    },
    rollback: () =>
      posture === 'stuck' && fails ? Promise.reject(new Error('not released')) : Promise.resolve(),
  };
  const applier = createApplier({
    bus,
    nodeId: 'node-0',
    subsystems: [toolServers],
    node,
    logger,
    source: revisionsOf(view),
  });
  await activate('Acme');
  await applier.reconcile();
  const alarms = await startAlarms({
    bus,
    nodeId: 'node-0',
    logger,
    facts: () => ({ ...calmFacts, posture: alarmedPosture(node.view()) }),
  });
  t.teardown(() => alarms.stop());
  alarms.settle();
  fails = true;
  await activate('Acme 2');
  await applier.reconcile();
  alarms.evaluate();
  t.match(node.view(), { phase: 'serving', posture, appliedEpoch: 1 });
  t.same(
    alarms.active().map((a) => a.id),
    [`apply_${posture}`],
  );
  const events = async (type: string): Promise<unknown[]> => {
    await alarms.stop();
    const out: unknown[] = [];
    for await (const m of bus.replay(Streams.Events, { subject: Subjects.event(type) }))
      out.push(EventRecord.parse(JSON.parse(dec.decode(m.data))).payload['alarm']);
    return out;
  };
  /** Activates a newer epoch and starts its apply, held until the answer is settled: fail or succeed. */
  const applyNext = async (name: string) => {
    let release = (): void => undefined;
    hold = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (started = resolve));
    await activate(name);
    const applying = applier.reconcile();
    await entered;
    t.match(node.view(), { phase: 'serving', posture: 'wait' }, 'the apply runs');
    return {
      end: async (failing: boolean) => {
        fails = failing;
        release();
        await applying;
      },
    };
  };
  return { node, alarms, events, applyNext };
}

t.test('an isolated node whose next apply fails too keeps its one apply_isolated alarm', async (t) => {
  const { node, alarms, events, applyNext } = await divergedNode(t);
  const apply = await applyNext('Acme 3');
  alarms.evaluate();
  t.same(
    alarms.active().map((a) => a.id),
    ['apply_isolated'],
    'still raised while the apply runs (posture wait)',
  );
  await apply.end(true);
  alarms.evaluate();
  t.match(node.view(), { phase: 'serving', posture: 'isolated', appliedEpoch: 1 });
  t.same(await events('alarm_raised'), ['apply_isolated'], 'raised once');
  t.same(await events('alarm_cleared'), [], 'never cleared: the node never recovered');
});

t.test('an isolated node whose next apply succeeds clears apply_isolated once', async (t) => {
  const { node, alarms, events, applyNext } = await divergedNode(t);
  const apply = await applyNext('Acme 3');
  alarms.evaluate();
  await apply.end(false);
  alarms.evaluate();
  t.match(node.view(), { phase: 'serving', posture: 'serve', appliedEpoch: 3 });
  t.same(alarms.active(), []);
  t.same(await events('alarm_raised'), ['apply_isolated']);
  t.same(await events('alarm_cleared'), ['apply_isolated'], 'cleared once, when the apply succeeded');
});

t.test('an isolated node that drains keeps apply_isolated standing for its restart', async (t) => {
  const { node, alarms, events } = await divergedNode(t);
  node.send({ type: 'node.drain' });
  alarms.evaluate();
  t.match(node.view(), { phase: 'draining', posture: 'isolated' });
  t.same(
    alarms.active().map((a) => a.id),
    ['apply_isolated'],
  );
  t.same(await events('alarm_cleared'), []);
});

t.test('a stuck serving node whose next apply fails too keeps its one apply_stuck alarm', async (t) => {
  const { node, alarms, events, applyNext } = await divergedNode(t, 'stuck');
  const apply = await applyNext('Acme 3');
  alarms.evaluate();
  t.same(
    alarms.active().map((a) => a.id),
    ['apply_stuck'],
    'still raised while the apply runs (posture wait)',
  );
  await apply.end(true);
  alarms.evaluate();
  t.match(node.view(), { phase: 'serving', posture: 'stuck', appliedEpoch: 1 });
  t.same(await events('alarm_raised'), ['apply_stuck'], 'raised once');
  t.same(await events('alarm_cleared'), [], 'never cleared: the node never recovered');
});
