/**
 * Learning settings are read at start (spec "Revision activation": learning config changes are stored for
 * the next restart only, warning logged). The warning is said once an apply has ended, and only when the
 * settings then applied differ from the ones running: a revision rolled back leaves nothing for the restart,
 * and going back to the running settings neither.
 */
import t from 'tap';
import {
  activePointerKey,
  configSubjects,
  createApplier,
  executeWrite,
  startNodeHost,
  type SubsystemApplier,
} from '../../actors/index.js';
import { ensureCatalogue, Streams } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { followConfig, readRevision } from '../../projections/index.js';
import type { RevisionApplied } from '../../schema/index.js';
import { startToolServers } from '../../scripts/toolservers-wiring.js';
import { aConfigWrite, validAsSent } from '../actors/fixtures/config-write.js';
import { captureLogs } from '../actors/toolservers/harness.js';

const dec = new TextDecoder();

t.test(
  'the learning restart warning is logged only when the settings applied differ from the running ones once the apply ended',
  async (t) => {
    const logs = captureLogs();
    const { logger } = logs;
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    const { coord } = await ensureCatalogue(bus);
    const view = await followConfig({
      bus,
      coord,
      stream: Streams.Config,
      subjects: configSubjects,
      activeKey: activePointerKey,
      logger,
    });
    t.teardown(() => view.stop());
    const tools = startToolServers({ bus, nodeId: 'node-0', logger });
    t.teardown(() => tools.stop());
    // The last subsystem of the apply order: when it fails, the tool servers' part is rolled back.
    let failInboxes = false;
    const inboxes: SubsystemApplier = {
      name: 'seat_inboxes',
      apply: () => (failInboxes ? Promise.reject(new Error('inbox refused')) : Promise.resolve()),
    };
    const node = startNodeHost(
      {
        node: 'node-0',
        version: 'test',
        startedAt: new Date().toISOString(),
        queue: 'memory',
        roles: ['ingress'],
        ingress: true,
        eventHistorySeconds: 1,
        spendHistorySeconds: 1,
      },
      logger,
    );
    node.send({ type: 'node.booted' });
    const applied: RevisionApplied[] = [];
    const sub = bus.subscribe(configSubjects.revisionApplied, (m) =>
      applied.push(JSON.parse(dec.decode(m.data)) as RevisionApplied),
    );
    t.teardown(() => sub.stop());
    const applier = createApplier({
      bus,
      nodeId: 'node-0',
      subsystems: [tools.subsystem, inboxes],
      node,
      logger,
      source: {
        active: () => view.state.active,
        revision: (id) => readRevision(view.state, id),
        untilStored: (id, ms) => view.until((s) => s.revisions.has(id), ms),
      },
    });
    let basis: string | null = null;
    let epoch = 0;
    const activate = async (document: unknown): Promise<RevisionApplied | undefined> => {
      const reply = await executeWrite(
        { bus, coord, logger, validate: validAsSent },
        aConfigWrite(document, basis),
      );
      basis = reply.outcome === 'stored' ? reply.revision_id : null;
      epoch += 1;
      const at = epoch;
      await view.until((s) => s.active?.epoch === at, 30_000);
      await applier.reconcile();
      return applied.at(-1);
    };
    const warnings = (): string[] =>
      logs.lines.filter((l) => /next restart/.test(l.msg)).map((l) => `${String(l['level'])} ${l.msg}`);
    const doc = (learning?: unknown) => ({
      name: 'Acme',
      roles: [{ name: 'Ada' }],
      ...(learning ? { learning } : {}),
    });

    t.match(await activate(doc()), { status: 'applied' });
    t.same(warnings(), [], 'the first document is what runs: nothing waits');

    failInboxes = true;
    t.match(await activate(doc({ enabled: false })), {
      status: 'failed',
      applied_subsystems: ['tool_servers'],
    });
    t.same(warnings(), [], 'a rolled-back revision leaves the running settings applied: no warning');

    failInboxes = false;
    t.match(await activate(doc({ enabled: false })), { status: 'applied' });
    t.same(
      warnings(),
      ['40 learning.enabled changed to false; it takes effect at the next restart'],
      'the change applied: one warning',
    );
    t.match(await activate(doc({ enabled: false })), { status: 'unchanged' });

    failInboxes = true;
    t.match(await activate(doc()), { status: 'failed' });
    t.equal(warnings().length, 1, 'rolled back to the applied change: said already');

    failInboxes = false;
    t.match(await activate(doc()), { status: 'applied' });
    t.equal(warnings().length, 1, 'back to the running settings: nothing waits for the restart');

    t.match(await activate(doc({ reflect: { enabled: true } })), { status: 'applied' });
    t.match(warnings().at(-1), /^40 the learning settings changed; they take effect at the next restart$/);
    t.equal(warnings().length, 2);
  },
);
