/**
 * Spend ledger memory (not a test): BENCH_SPEND_CALLS spend records (default 300,000) spread evenly over
 * the 92 days the ledger answers about, 20 seats, three phases, two models, six calls a turn. Prints the heap
 * the ledger holds per call (the last 32 days whole, older days as quarter-hour sums) against the same
 * records held whole, as parsed (what the ledger kept before), measured in the same run.
 *
 * Run: node --import=tsx scripts/bench/spend-ledger.ts [--json]
 */
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { applySpend, emptyLedger, pruneLedger } from '../../projections/index.js';
import { SpendRecord } from '../../schema/index.js';
import { report, row } from './table.js';

const calls = Number(process.env['BENCH_SPEND_CALLS'] ?? 300_000);
const now = Date.parse('2026-12-01T00:00:00Z');
const span = 92 * 86_400_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Record i as it arrives off the bus: JSON, each string its own copy. */
function message(i: number): unknown {
  const seat = i % 20;
  return JSON.parse(
    JSON.stringify({
      id: randomUUID(),
      timestamp: new Date(now - span + Math.floor((i / calls) * span) + 1_000).toISOString(),
      node: 'node-0',
      handle: `seat-${seat}`,
      agent_id: `3f2b8c1e-0000-4000-8000-${String(seat).padStart(12, '0')}`,
      role: `Role ${seat}`,
      turn_id: `turn-${Math.floor(i / 6)}-${randomUUID()}`,
      phase: ['plan', 'execute', 'review'][i % 3],
      worker: null,
      provider: 'main',
      model: i % 2 === 0 ? 'model-small-2026' : 'model-large-2026',
      input_tokens: 1_000 + (i % 100),
      output_tokens: 200,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      total_tokens: 1_200 + (i % 100),
    }),
  );
}

/** Heap bytes `build` leaves held per call. */
function heldPerCall(build: () => unknown): { bytes: number; held: unknown } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const held = build();
  gc();
  return { bytes: (process.memoryUsage().heapUsed - before) / calls, held };
}

const whole = heldPerCall(() => {
  const records: SpendRecord[] = [];
  for (let i = 0; i < calls; i += 1) records.push(SpendRecord.parse(message(i)));
  return records;
});
const ledger = heldPerCall(() => {
  const l = emptyLedger(() => now);
  for (let i = 0; i < calls; i += 1) applySpend(l, SpendRecord.parse(message(i)));
  pruneLedger(l);
  return l;
});
const kept = ledger.held as ReturnType<typeof emptyLedger>;
console.log(
  `${calls} calls over 92 days: ${kept.entries.length} whole, ${kept.slots.length} quarter-hour sums; ` +
    `${Math.round(ledger.bytes)} bytes a call (all whole: ${Math.round(whole.bytes)})`,
);
report([
  row('spend-ledger', `ledger heap per call, ${calls} calls over 92 days (vs all whole)`, ledger.bytes, 'bytes', whole.bytes), // prettier-ignore
]);
