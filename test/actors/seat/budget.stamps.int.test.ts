/**
 * The budget check counts a spend record exactly when `/budgets` does, however its stamp is spelled: both
 * read the stamp as the read models read every instant (projection rule 3, schema's `instantMs`), so a
 * record another build or producer wrote with a comma fraction, an offset, padding or epoch digits is
 * counted by both or by neither, never by one alone.
 */
import t from 'tap';
import { createBudget } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../../bus/index.js';
import { monthWindow } from '../../../projections/tokens/budgets.js';
import { applySpend, emptyLedger, ledgerRange } from '../../../projections/tokens/tokens.ledger.js';
import type { SpendRecord } from '../../../schema/index.js';

const now = Date.parse('2026-03-15T12:00:00Z');
const at = Date.parse('2026-03-10T08:00:00Z');

const spellings = [
  '2026-03-10T08:00:00.000Z',
  '2026-03-10T08:00:00,000Z',
  '2026-03-10T09:00:00+01:00',
  ' 2026-03-10T08:00:00Z ',
  String(at),
  String(at / 1000),
  'March 10, 2026 08:00:00 UTC',
  '2026-03-10',
  'not a time',
];

const record = (id: string, timestamp: string): SpendRecord => ({
  id,
  timestamp,
  node: 'node-x',
  handle: 'ada',
  agent_id: 'agent-ada',
  role: 'Ada',
  turn_id: null,
  phase: 'execute',
  worker: null,
  provider: 'main',
  model: 'm',
  input_tokens: 10,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  total_tokens: 10,
});

t.test(
  'a record counts in the budget check exactly when it counts in /budgets, whatever its stamp',
  async (t) => {
    const { startMs, endMs } = monthWindow(now, 'UTC');
    for (const [i, stamp] of spellings.entries()) {
      const bus = await openMemoryBus({ clock: () => now });
      t.teardown(() => bus.close());
      await ensureCatalogue(bus);
      const r = record(`r-${i}`, stamp);
      await bus.publish(Subjects.spend('llm'), new TextEncoder().encode(JSON.stringify(r)), { msgId: r.id });
      const ledger = emptyLedger(() => now);
      applySpend(ledger, r, now);
      const shown = ledgerRange(ledger, startMs, endMs).reduce((sum, x) => sum + x.total_tokens, 0);
      const budget = createBudget({ bus, timezone: () => 'UTC', now: () => now });
      t.teardown(() => budget.stop());
      const refusal = await budget.check('ada', { org: 0, seat: 10 });
      t.equal(refusal?.used ?? 0, shown, `${JSON.stringify(stamp)}: /budgets counts ${shown}`);
    }
  },
);
