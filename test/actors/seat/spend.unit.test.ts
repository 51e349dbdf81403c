import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { auxiliarySpendRecord } from '../../../actors/index.js';
import { SpendRecord } from '../../../schema/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

t.test('an auxiliary call is a spend record of phase auxiliary naming its worker', async (t) => {
  const at = new Date('2026-11-23T10:00:00Z');
  const record = auxiliarySpendRecord('node-0', {
    worker: 'counterparty_profiler',
    provider: 'main',
    model: 'gpt-mini',
    input_tokens: 40,
    output_tokens: 8,
    cache_read_tokens: 30,
    seat: { handle: 'cto', agent_id: 'agent-cto', role: 'CTO' },
    turn_id: 'turn-1',
    id: 'aux-1',
    at,
  });
  t.ok(SpendRecord.safeParse(record).success, 'a valid spend record');
  t.match(record, {
    id: 'aux-1',
    timestamp: at.toISOString(),
    node: 'node-0',
    handle: 'cto',
    role: 'CTO',
    turn_id: 'turn-1',
    phase: 'auxiliary',
    worker: 'counterparty_profiler',
    total_tokens: 48,
    cache_read_tokens: 30,
    cache_write_tokens: 0,
  });
  const seatless = auxiliarySpendRecord('node-0', {
    worker: 'skill_synthesizer',
    provider: 'main',
    model: 'm',
    input_tokens: 1,
    output_tokens: 1,
  });
  t.match(seatless, { handle: '', agent_id: '', role: '', turn_id: null });
  t.ok(SpendRecord.safeParse(seatless).success);
});

t.test('only recordAuxiliarySpend publishes auxiliary_spend (its record is what counts)', async (t) => {
  const publishers: string[] = [];
  for (const dir of ['actors', 'bus', 'http', 'scripts'])
    for (const file of tsFiles(join(root, dir)))
      if (/type:\s*['"`]auxiliary_spend['"`]/.test(readFileSync(file, 'utf8')))
        publishers.push(relative(root, file));
  t.same(publishers, ['actors/seat/spend.ts']);
});
