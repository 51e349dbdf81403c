/**
 * Learning settings are read at start (spec "Revision activation": learning config changes are stored for
 * the next restart only, warning logged). The warning is said once an apply has ended, and only when the
 * settings then applied differ from the ones running: a revision rolled back leaves nothing for the restart,
 * and going back to the running settings neither.
 */
import t from 'tap';
import { startToolServers } from '../../scripts/toolservers-wiring.js';
import { applyHarness } from './fixtures/apply-harness.js';

t.test(
  'the learning restart warning is logged only when the settings applied differ from the running ones once the apply ended',
  async (t) => {
    const { logs, activate, failLast } = await applyHarness(t, ({ bus, logger }) => {
      const tools = startToolServers({ bus, nodeId: 'node-0', logger });
      t.teardown(() => tools.stop());
      return tools.subsystem;
    });
    const warnings = (): string[] =>
      logs.lines.filter((l) => /next restart/.test(l.msg)).map((l) => `${String(l['level'])} ${l.msg}`);
    const doc = (learning?: unknown) => ({
      name: 'Acme',
      roles: [{ name: 'Ada' }],
      ...(learning ? { learning } : {}),
    });

    t.match(await activate(doc()), { status: 'applied' });
    t.same(warnings(), [], 'the first document is what runs: nothing waits');

    failLast(true);
    t.match(await activate(doc({ enabled: false })), {
      status: 'failed',
      applied_subsystems: ['tool_servers'],
    });
    t.same(warnings(), [], 'a rolled-back revision leaves the running settings applied: no warning');

    failLast(false);
    t.match(await activate(doc({ enabled: false })), { status: 'applied' });
    t.same(
      warnings(),
      ['40 learning.enabled changed to false; it takes effect at the next restart'],
      'the change applied: one warning',
    );
    t.match(await activate(doc({ enabled: false })), { status: 'unchanged' });

    failLast(true);
    t.match(await activate(doc()), { status: 'failed' });
    t.equal(warnings().length, 1, 'rolled back to the applied change: said already');

    failLast(false);
    t.match(await activate(doc()), { status: 'applied' });
    t.equal(warnings().length, 1, 'back to the running settings: nothing waits for the restart');

    t.match(await activate(doc({ reflect: { enabled: true } })), { status: 'applied' });
    t.match(warnings().at(-1), /^40 the learning settings changed; they take effect at the next restart$/);
    t.equal(warnings().length, 2);
  },
);
