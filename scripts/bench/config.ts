/**
 * Configuration benchmark: for a generated 500-seat company, the time of `PUT /config` end to end
 * (HTTP, guard, parse, mask restore, bus command, validation, store, compare-and-set, read model)
 * divided by the time of validating the same document alone (target ≤ 3), and the apply time
 * (activation to `svc.config.revision_applied` on this node).
 *
 * Run (from the repository root):
 *   TS_NODE_TRANSPILE_ONLY=1 node --import @isaacs/ts-node-temp-fork-for-pr-2009/import scripts/bench/config.ts
 * Options (environment): BENCH_SEATS (default 500), BENCH_ROUNDS (default 15; medians are printed).
 */
import { createServer } from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { startNodeHost } from '../../actors/index.js';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { startGateway } from '../../http/index.js';
import { parseTierA, validateCompany } from '../../schema/index.js';
import { startConfiguration } from '../config-wiring.js';

const seats = Number(process.env['BENCH_SEATS'] ?? 500);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);
const token = 'bench-token-0123456789abcdef';

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
          mcp_env: { docs: { DOCS_TOKEN: `\${DOCS_TOKEN_${team}}` } },
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
    mcp_servers: [{ name: 'docs', command: 'npx', args: ['docs-mcp'], env: { DOCS_TOKEN: '${DOCS_TOKEN}' } }],
    units,
  };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  return typeof address === 'object' && address ? address.port : 0;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const bus = await openMemoryBus({});
  const catalogue = await ensureCatalogue(bus);
  const parsed = parseTierA('', { env: {}, cwd: process.cwd() });
  if (!parsed.ok) throw new Error('tier A');
  const node = startNodeHost(
    {
      node: 'bench',
      version: 'bench',
      startedAt: new Date().toISOString(),
      queue: 'memory',
      roles: parsed.config.node.roles,
      ingress: true,
      eventHistorySeconds: catalogue.eventHistorySeconds,
      spendHistorySeconds: catalogue.spendHistorySeconds,
    },
    logger,
  );
  node.send({ type: 'node.booted' });
  const configuration = await startConfiguration({
    bus,
    coord: catalogue.coord,
    node,
    config: parsed.config,
    logger,
  });
  const auth = { disabled: false, allowAnonymousRead: true, tokens: [{ id: 'bench', token }] };
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: await freePort(),
    ingress: true,
    auth,
    routes: configuration.routes(auth),
    probes: {
      health: () => ({}),
      ready: () => ({ ready: true }),
      draining: () => false,
      configured: () => true,
    },
    logger,
  });
  const applied = new Map<number, number>();
  bus.subscribe(Subjects.configRevisionApplied, (m) => {
    const event = JSON.parse(new TextDecoder().decode(m.data)) as { epoch: number };
    applied.set(event.epoch, performance.now());
  });

  const validateTimes: number[] = [];
  const putTimes: number[] = [];
  const applyTimes: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const doc = generateCompany(seats, round);
    const body = JSON.stringify(doc);
    const v0 = performance.now();
    const result = validateCompany(JSON.parse(body), { mode: 'write' });
    validateTimes.push(performance.now() - v0);
    if (!result.valid)
      throw new Error(`generated company invalid: ${JSON.stringify(result.problems.slice(0, 3))}`);
    const p0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${gateway.port}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-summary': `round ${round}`,
      },
      body,
    });
    const answer = (await res.json()) as { epoch?: number };
    const p1 = performance.now();
    if (res.status !== 201 || answer.epoch === undefined)
      throw new Error(`PUT answered ${res.status}: ${JSON.stringify(answer)}`);
    putTimes.push(p1 - p0);
    for (let i = 0; i < 200 && !applied.has(answer.epoch); i += 1)
      await new Promise((resolve) => setImmediate(resolve));
    const at = applied.get(answer.epoch);
    if (at !== undefined) applyTimes.push(Math.max(0, at - p1));
  }
  const validateMs = median(validateTimes);
  const putMs = median(putTimes);
  console.log(`company: ${seats} seats, ${rounds} rounds (medians; the first rounds warm the JIT)`);
  console.log(`validate alone:      ${validateMs.toFixed(1)} ms`);
  console.log(`PUT /config (e2e):   ${putMs.toFixed(1)} ms`);
  console.log(`ratio PUT/validate:  ${(putMs / validateMs).toFixed(2)} (target <= 3)`);
  console.log(
    `apply after answer:  ${applyTimes.length > 0 ? `${median(applyTimes).toFixed(1)} ms` : 'n/a'} (no subsystems registered yet: bookkeeping only)`,
  );
  await gateway.close();
  await configuration.stop();
  await bus.close();
}

await main();
