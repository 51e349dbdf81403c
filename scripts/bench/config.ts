/**
 * Configuration benchmark: for a generated 500-seat company, the time of `PUT /config` to a `svc serve` child,
 * end to end (HTTP, guard, parse, mask restore, bus command, validation, store, compare-and-set, read model),
 * divided by the time of validating the same document alone in this process (target <= 3), and the time from
 * sending the PUT to the node's `config applied` log line for that epoch.
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/config.ts [--json]
 * Options (environment): BENCH_SEATS (default 500), BENCH_ROUNDS (default 15; medians are printed).
 */
import { validateCompany } from '../../schema/index.js';
import { auth, startServe } from './node.js';
import { report, row } from './table.js';

const seats = Number(process.env['BENCH_SEATS'] ?? 500);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);

/** A company of `n` agent seats in departments of teams, with providers, tool servers and schedules. */
function generateCompany(n: number, revision: number): Record<string, unknown> {
  const perTeam = 10;
  const teams = Math.ceil(n / perTeam);
  const departments = Math.max(1, Math.ceil(teams / 5));
  const units = Array.from({ length: departments }, (_, d) => ({
    name: `Department ${d}`,
    type: 'department',
    children: Array.from({ length: Math.min(5, teams - d * 5) }, (_, k) => {
      const team = d * 5 + k;
      return {
        name: `Team ${team}`,
        type: 'team',
        lead: `Agent ${team * perTeam}`,
        roles: Array.from({ length: Math.min(perTeam, n - team * perTeam) }, (_, i) => ({
          name: `Agent ${team * perTeam + i}`,
          goal: `Keep area ${team * perTeam + i} healthy (revision ${revision}).`,
          responsibilities: ['triage', 'fix', 'report'],
          llm: i % 2 === 0 ? 'primary' : 'secondary',
          schedules: i === 0 ? [{ name: 'standup', cron: '0 9 * * 1-5', task: 'Post the standup.' }] : [],
        })),
      };
    }),
  }));
  return {
    name: 'Bench Co',
    mission: `Benchmark revision ${revision}`,
    providers: {
      llm: {
        primary: { type: 'anthropic', model: 'claude-sonnet-4-5', api_keys: ['${ANTHROPIC_KEY}'] },
        secondary: { type: 'openai', model: 'gpt-4o', api_keys: ['${OPENAI_KEY}'] },
      },
      llm_order: ['primary', 'secondary'],
    },
    units,
  };
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  // The node resolves the providers' keys from its environment; its seats stay idle (no wakes).
  const node = await startServe({ env: { ANTHROPIC_KEY: 'sk-bench', OPENAI_KEY: 'sk-bench' } });
  const validateTimes: number[] = [];
  const putTimes: number[] = [];
  const applyTimes: number[] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      const doc = generateCompany(seats, round);
      const body = JSON.stringify(doc);
      const v0 = performance.now();
      const result = validateCompany(JSON.parse(body), { mode: 'write' });
      validateTimes.push(performance.now() - v0);
      if (!result.valid)
        throw new Error(`generated company invalid: ${JSON.stringify(result.problems.slice(0, 3))}`);
      const p0 = performance.now();
      const sentAt = Date.now();
      const res = await fetch(`${node.url}/config`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json', 'x-summary': `round ${round}` },
        body,
      });
      const answer = (await res.json()) as { epoch?: number };
      const p1 = performance.now();
      if (res.status !== 201 || answer.epoch === undefined)
        throw new Error(`PUT answered ${res.status}: ${JSON.stringify(answer)}`);
      putTimes.push(p1 - p0);
      const applied = await node.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === answer.epoch);
      if (typeof applied['time'] === 'number') applyTimes.push(Math.max(0, applied['time'] - sentAt));
    }
  } finally {
    await node.stop();
  }
  const validateMs = median(validateTimes);
  const putMs = median(putTimes);
  const applyMs = applyTimes.length > 0 ? median(applyTimes) : Number.NaN;
  console.log(`company: ${seats} seats, ${rounds} rounds (medians; the first rounds warm the JIT)`);
  console.log(`validate alone:      ${validateMs.toFixed(1)} ms`);
  console.log(`PUT /config (e2e):   ${putMs.toFixed(1)} ms`);
  console.log(`ratio PUT/validate:  ${(putMs / validateMs).toFixed(2)} (target <= 3)`);
  console.log(
    `PUT to applied:      ${applyMs.toFixed(1)} ms (the log line's clock; ${seats} idle seats started)`,
  );
  report([
    row('config', `PUT /config, ${seats} seats`, putMs, 'ms', validateMs, 'ratio <= 3'),
    row('config', 'PUT sent to config applied', applyMs, 'ms', null),
  ]);
}

await main();
