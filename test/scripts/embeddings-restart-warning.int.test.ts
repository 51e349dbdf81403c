/**
 * `providers.embeddings` is read at start (spec "Revision activation": an embeddings change only logs a
 * restart-required warning). The warning is said once an apply has ended, and only when the block then
 * applied differs from the one the node runs: a revision rolled back leaves nothing for the restart, and
 * going back to the running block neither.
 */
import t from 'tap';
import { startProviders } from '../../scripts/providers-wiring.js';
import { applyHarness } from './fixtures/apply-harness.js';

t.test(
  'the embeddings restart warning is logged only when the block applied differs from the running one once the apply ended',
  async (t) => {
    let providers: ReturnType<typeof startProviders> | undefined;
    const { logs, activate, failLast } = await applyHarness(t, ({ bus, logger }) => {
      providers = startProviders({ bus, nodeId: 'node-0', logger, resolve: () => undefined });
      return providers;
    });
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

    failLast(true);
    t.match(await activate(doc('e2')), { status: 'failed', applied_subsystems: ['providers'] });
    t.same(warnings(), [], 'a rolled-back revision leaves the running block applied: no warning');

    failLast(false);
    t.match(await activate(doc('e2')), { status: 'applied' });
    t.same(
      warnings(),
      [
        '40 providers.embeddings changed; it is read at start only: personal memory keeps the embeddings it started with until a restart',
      ],
      'the change applied: one warning',
    );
    t.match(await activate(doc('e2')), { status: 'unchanged' });

    failLast(true);
    t.match(await activate(doc('e1')), { status: 'failed' });
    t.equal(warnings().length, 1, 'rolled back to the applied change: said already');

    failLast(false);
    t.match(await activate(doc('e1')), { status: 'applied' });
    t.equal(warnings().length, 1, 'back to the running block: nothing waits for the restart');

    t.match(await activate(doc('e3')), { status: 'applied' });
    t.equal(warnings().length, 2, 'another change: said again');
    t.match(providers?.embeddings(), { model: 'e1' }, 'the running block is still the first');
  },
);
