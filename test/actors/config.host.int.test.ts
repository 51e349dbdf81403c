import t, { type Test } from 'tap';
import { pino } from 'pino';
import {
  configSubjects,
  createApplier,
  executeWrite,
  startConfigWriter,
  type SubsystemApplier,
} from '../../actors/index.js';
import { sendCommand, Streams } from '../../bus/index.js';
import { activeRevision } from '../../projections/index.js';
import { Commands, EventRecord, type ConfigWrite, type RevisionApplied } from '../../schema/index.js';
import { followedConfig, nodeZero, revisionsOf } from './fixtures/config-node.js';
import { aConfigWrite, validAsSent } from './fixtures/config-write.js';

const logger = pino({ level: 'silent' });
const dec = new TextDecoder();

const setup = (t: Test) => followedConfig(t, logger);

/** A serving node host, its applier over `subsystems`, and the RevisionApplied records it publishes. */
function applierOn(
  t: Test,
  { bus, view }: Pick<Awaited<ReturnType<typeof setup>>, 'bus' | 'view'>,
  subsystems: SubsystemApplier[],
  resolve?: (name: string) => string | undefined,
) {
  const node = nodeZero(logger);
  node.send({ type: 'node.booted' });
  const applied: RevisionApplied[] = [];
  const appliedSub = bus.subscribe(configSubjects.revisionApplied, (m) =>
    applied.push(JSON.parse(dec.decode(m.data)) as RevisionApplied),
  );
  t.teardown(() => appliedSub.stop());
  const applier = createApplier({
    bus,
    nodeId: 'node-0',
    subsystems,
    node,
    logger,
    ...(resolve ? { resolve } : {}),
    source: revisionsOf(view),
  });
  return { node, applier, applied };
}

t.test('a write stores the revision, activates it at epoch 1 and the read model shows it', async (t) => {
  const { bus, coord, view } = await setup(t);
  const reply = await executeWrite(
    { bus, coord, logger, validate: validAsSent },
    aConfigWrite({ name: 'Acme' }, null),
  );
  t.match(reply, { outcome: 'stored', epoch: 1 });
  t.ok(await view.until((s) => s.active?.epoch === 1 && activeRevision(s) !== null, 30_000));
  t.same(activeRevision(view.state)?.payload, { name: 'Acme' });
});

t.test(
  'twenty concurrent writers on the same basis: exactly one activates, the rest are stored inactive',
  async (t) => {
    const { bus, coord, view } = await setup(t);
    const first = await executeWrite(
      { bus, coord, logger, validate: validAsSent },
      aConfigWrite({ name: 'v0' }, null),
    );
    const basis = first.outcome === 'stored' ? first.revision_id : '';
    await view.until((s) => s.active?.revision_id === basis, 30_000);
    const writers = Array.from({ length: 20 }, (_, i) =>
      executeWrite({ bus, coord, logger, validate: validAsSent }, aConfigWrite({ name: `v${i + 1}` }, basis)),
    );
    const replies = await Promise.all(writers);
    const won = replies.filter((r) => r.outcome === 'stored');
    const lost = replies.filter((r) => r.outcome === 'refused' && r.error === 'revision_advanced');
    t.equal(won.length, 1, 'one winner');
    t.equal(lost.length, 19, 'nineteen 409s');
    await view.until((s) => s.order.length === 21, 30_000);
    for (const r of lost) {
      const id = r.outcome === 'refused' ? r.stored_revision_id : undefined;
      t.ok(id && view.state.revisions.has(id), 'a losing revision is stored and readable');
    }
    t.equal(view.state.active?.epoch, 2);
  },
);

t.test('the writer answers commands on the bus and refuses a stale basis', async (t) => {
  const { bus, coord } = await setup(t);
  const sub = startConfigWriter({ bus, coord, logger, validate: validAsSent });
  t.teardown(() => sub.stop());
  const ask = (command: ConfigWrite) =>
    sendCommand(bus, Commands.config.write, command, { timeoutMs: 5_000 });
  const first = await ask(aConfigWrite({ name: 'a' }, null));
  t.match(first, { outcome: 'stored', epoch: 1 });
  t.match(await ask(aConfigWrite({ name: 'b' }, null)), {
    outcome: 'refused',
    error: 'revision_advanced',
    status: 409,
  });
  t.match(await ask(aConfigWrite({ name: 'b' }, null, { precondition: { if_none_match_any: true } })), {
    outcome: 'refused',
    error: 'already_configured',
  });
});

t.test(
  'the applier applies in subsystem order, short-circuits an unchanged payload and rolls back a failure',
  async (t) => {
    const { bus, coord, view } = await setup(t);
    const calls: string[] = [];
    let failProviders = false;
    const sub = (name: SubsystemApplier['name']): SubsystemApplier => ({
      name,
      apply: async () => {
        calls.push(`apply:${name}`);
        if (name === 'providers' && failProviders) throw new Error('provider rejected');
      },
      rollback: async () => {
        calls.push(`rollback:${name}`);
      },
    });
    const { node, applier, applied } = applierOn(t, { bus, view }, [
      sub('scalars'),
      sub('org'),
      sub('providers'),
      sub('budgets'),
    ]);
    const opts = { bus, coord, logger, validate: validAsSent };
    const r1 = await executeWrite(opts, aConfigWrite({ name: 'a' }, null));
    await view.until((s) => s.active?.epoch === 1, 30_000);
    await applier.reconcile();
    t.same(calls, ['apply:org', 'apply:budgets', 'apply:providers', 'apply:scalars']);
    t.match(node.view(), { phase: 'serving', posture: 'serve', appliedEpoch: 1 });

    calls.length = 0;
    const id1 = r1.outcome === 'stored' ? r1.revision_id : '';
    const r2 = await executeWrite(
      opts,
      aConfigWrite({ name: 'a' }, id1, { source: 'api', summary: 'reload' }),
    );
    await view.until((s) => s.active?.epoch === 2, 30_000);
    await applier.reconcile();
    t.same(calls, [], 'an unchanged payload does no work');
    t.equal(node.view().appliedEpoch, 2);

    failProviders = true;
    const id2 = r2.outcome === 'stored' ? r2.revision_id : '';
    const r3 = await executeWrite(opts, aConfigWrite({ name: 'b' }, id2));
    await view.until((s) => s.active?.epoch === 3, 30_000);
    await applier.reconcile();
    t.same(
      calls,
      [
        'apply:org',
        'apply:budgets',
        'apply:providers',
        'rollback:providers',
        'rollback:budgets',
        'rollback:org',
      ],
      'the failing subsystem is rolled back too',
    );
    // The prior revision still serves: the applied epoch stays where it was.
    t.match(node.view(), { phase: 'serving', posture: 'isolated', appliedEpoch: 2 });
    t.match(
      applied.map((a) => [a.status, a.epoch]),
      [
        ['applied', 1],
        ['unchanged', 2],
        ['failed', 3],
      ],
    );
    t.match(applied.at(-1), {
      applied_subsystems: ['org', 'budgets'],
      error: 'providers: provider rejected',
      posture: 'isolated',
    });
    // Each apply is also in the event history.
    const recorded: EventRecord[] = [];
    for await (const m of bus.replay(Streams.Events))
      recorded.push(EventRecord.parse(JSON.parse(dec.decode(m.data))));
    t.match(
      recorded.map((e) => [e.type, e.category, e.failed, e.payload['status'], e.payload['epoch']]),
      [
        ['ConfigRevisionApplied', 'system', false, 'applied', 1],
        ['ConfigRevisionApplied', 'system', false, 'unchanged', 2],
        ['ConfigRevisionApplied', 'system', true, 'failed', 3],
      ],
    );

    // The prior document put back after the failure is applied again, not skipped as unchanged: the
    // failed apply may have left a subsystem partly changed.
    failProviders = false;
    calls.length = 0;
    const id3 = r3.outcome === 'stored' ? r3.revision_id : '';
    await executeWrite(opts, aConfigWrite({ name: 'a' }, id3));
    await view.until((s) => s.active?.epoch === 4, 30_000);
    await applier.reconcile();
    t.same(calls, ['apply:org', 'apply:budgets', 'apply:providers', 'apply:scalars']);
    t.match(applied.at(-1), { status: 'applied', epoch: 4 });
    t.match(node.view(), { appliedEpoch: 4 });
  },
);

t.test('applied_subsystems names each subsystem once, however many appliers it has', async (t) => {
  const { bus, coord, view } = await setup(t);
  const sub = (name: SubsystemApplier['name']): SubsystemApplier => ({ name, apply: async () => undefined });
  const { applier, applied } = applierOn(t, { bus, view }, [
    sub('org'),
    sub('org'),
    sub('org'),
    sub('providers'),
  ]);
  await executeWrite({ bus, coord, logger, validate: validAsSent }, aConfigWrite({ name: 'a' }, null));
  await view.until((s) => s.active?.epoch === 1, 30_000);
  await applier.reconcile();
  t.match(applied[0], { status: 'applied' });
  t.same(applied[0]!.applied_subsystems, ['org', 'providers']);
});

t.test(
  'a reload of an identical document whose ${VAR} references now resolve to new values re-applies it',
  async (t) => {
    const { bus, coord, view } = await setup(t);
    const calls: string[] = [];
    const secrets = new Map([['TOOL_TOKEN', 'old-value']]);
    const sub = (name: SubsystemApplier['name']): SubsystemApplier => ({
      name,
      apply: async () => void calls.push(name),
    });
    const { node, applier, applied } = applierOn(t, { bus, view }, [sub('org'), sub('tool_servers')], (n) =>
      secrets.get(n),
    );
    const opts = { bus, coord, logger, validate: validAsSent };
    const doc = { name: 'a', mcp_servers: [{ name: 'docs', command: 'x', env: { TOKEN: '${TOOL_TOKEN}' } }] };
    let basis = '';
    const store = async (epoch: number): Promise<void> => {
      const reply = await executeWrite(opts, aConfigWrite(doc, basis || null, { source: 'api.reload' }));
      basis = reply.outcome === 'stored' ? reply.revision_id : '';
      await view.until((s) => s.active?.epoch === epoch, 30_000);
      await applier.reconcile();
    };
    await store(1);
    t.same(calls, ['org', 'tool_servers']);

    calls.length = 0;
    await store(2);
    t.same(calls, [], 'nothing resolves differently: no work');
    t.match(applied.at(-1), { status: 'unchanged', epoch: 2 });

    secrets.set('TOOL_TOKEN', 'rotated-value');
    await store(3);
    t.same(calls, ['org', 'tool_servers'], 'the changed secret reaches the subsystems');
    t.match(applied.at(-1), { status: 'applied', epoch: 3 });
    t.match(node.view(), { posture: 'serve', appliedEpoch: 3 });
  },
);
