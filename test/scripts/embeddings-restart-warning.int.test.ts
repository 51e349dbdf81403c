/**
 * `providers.embeddings` is read at start (spec "Revision activation": an embeddings change only logs a
 * restart-required warning). The warning is said once an apply has ended, and only when the block then
 * applied differs from the one the node runs: a revision rolled back leaves nothing for the restart, and
 * going back to the running block neither.
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
import { startProviders } from '../../scripts/providers-wiring.js';
import { aConfigWrite, validAsSent } from '../actors/fixtures/config-write.js';
import { captureLogs } from '../actors/toolservers/harness.js';

const dec = new TextDecoder();

t.test(
  'the embeddings restart warning is logged only when the block applied differs from the running one once the apply ended',
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
    const providers = startProviders({ bus, nodeId: 'node-0', logger, resolve: () => undefined });
    // A subsystem after providers in the apply order: when it fails, the providers' part is rolled back.
    let failLater = false;
    const later: SubsystemApplier = {
      name: 'seat_inboxes',
      apply: () => (failLater ? Promise.reject(new Error('inbox refused')) : Promise.resolve()),
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
      subsystems: [providers, later],
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
      logs.lines
        .filter((l) => l['event'] === 'restart_required' && l['path'] === 'providers.embeddings')
        .map((l) => `${String(l['level'])} ${l.msg}`);
    // Never called: nothing here embeds. The model names the block.
    const doc = (model: string) => ({
      name: 'Acme',
      roles: [{ name: 'Ada' }],
      providers: {
        embeddings: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9', model, dimensions: 64 },
      },
    });

    t.match(await activate(doc('e1')), { status: 'applied' });
    t.same(warnings(), [], 'the first document is what runs: nothing waits');

    failLater = true;
    t.match(await activate(doc('e2')), { status: 'failed', applied_subsystems: ['providers'] });
    t.same(warnings(), [], 'a rolled-back revision leaves the running block applied: no warning');

    failLater = false;
    t.match(await activate(doc('e2')), { status: 'applied' });
    t.same(
      warnings(),
      [
        '40 providers.embeddings changed; it is read at start only: personal memory keeps the embeddings it started with until a restart',
      ],
      'the change applied: one warning',
    );
    t.match(await activate(doc('e2')), { status: 'unchanged' });

    failLater = true;
    t.match(await activate(doc('e1')), { status: 'failed' });
    t.equal(warnings().length, 1, 'rolled back to the applied change: said already');

    failLater = false;
    t.match(await activate(doc('e1')), { status: 'applied' });
    t.equal(warnings().length, 1, 'back to the running block: nothing waits for the restart');

    t.match(await activate(doc('e3')), { status: 'applied' });
    t.equal(warnings().length, 2, 'another change: said again');
    t.match(providers.embeddings(), { model: 'e1' }, 'the running block is still the first');
  },
);
