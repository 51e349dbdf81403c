/**
 * Tool-server benchmark: what a company whose one tool server offers 10,000 tools costs to apply and to start
 * (ops/tool-servers.md). The server is scripts/bench/mcp-many-tools.mjs, a bare stdio MCP server speaking
 * JSON-RPC by hand, so its own part is a node start and one 1 MB line. Measured in the same run:
 *   - the server alone: spawned, handshake and one `tools/list` read by a raw JSON-RPC client (no MCP SDK,
 *     no svc), the floor of any client;
 *   - the tool-server manager in this process (`createToolServerManager().apply`), start to tools listed,
 *     against that floor, then one seat's list (`toolsFor`) and the catalogue, against the same with 1 tool;
 *   - the built `svc serve`: `PUT /config` to its `config applied` line, each round restarting the server
 *     (a changed env value), and a node start on the stored document to `config applied`, each against the
 *     same with the server offering 1 tool (so the ratio's excess is what the 10,000 tools cost), and the
 *     node's CPU time over each (from /proc: steadier than wall-clock time on a machine doing other work).
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/toolservers.ts [--json]
 * Options (environment): BENCH_TOOLS (default 10000), BENCH_ROUNDS (default 5; medians are printed; boots run
 * BENCH_BOOTS, default 3).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createToolServerManager } from '../../actors/index.js';
import type { Company } from '../../schema/index.js';
import { auth, putCompany, startServe, type ServedNode } from './node.js';
import { report, row } from './table.js';

const tools = Number(process.env['BENCH_TOOLS'] ?? 10_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const boots = Number(process.env['BENCH_BOOTS'] ?? 3);
const serverPath = fileURLToPath(new URL('./mcp-many-tools.mjs', import.meta.url));

/**
 * A process's CPU time so far (user and system, its children not counted) in ms, from /proc: on a machine
 * busy with other work the wall-clock figures wander, this one much less.
 */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ms = (value: number): string => `${value.toFixed(1)} ms`;

/** Spawns the server, handshakes and lists by hand; the time to the listing, in ms. */
async function serverAlone(count: number): Promise<number> {
  const began = performance.now();
  const child = spawn(process.execPath, [serverPath], {
    env: { PATH: process.env['PATH'], MANY_TOOLS: String(count) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const send = (message: unknown): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  let listed = Number.NaN;
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
    if (message.id === 1) {
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    } else if (message.id === 2) {
      if (message.result?.tools?.length !== count) throw new Error('the server listed the wrong count');
      listed = performance.now() - began;
      break;
    }
  }
  child.stdin.end();
  child.kill('SIGKILL');
  await exited;
  return listed;
}

const company = (count: number, round: number, seats = 5): Record<string, unknown> => ({
  name: 'Bench Co',
  units: [
    {
      name: 'Team',
      type: 'team',
      roles: Array.from({ length: seats }, (_, i) => ({ name: `Agent ${i}`, goal: 'Keep it running.' })),
    },
  ],
  mcp_servers: [
    {
      name: 'many',
      command: process.execPath,
      args: [serverPath],
      // A changed value restarts the server: every round lists afresh.
      env: { MANY_TOOLS: String(count), ROUND: String(round) },
    },
  ],
});

interface ManagerFigures {
  readonly start: number;
  readonly seatList: number;
  readonly catalogue: number;
}

/** The manager in this process: apply to listed, then one seat's list and the catalogue (each read twice). */
async function managerRound(count: number, round: number): Promise<ManagerFigures> {
  const logger = pino({ level: 'info' }, pino.destination('/dev/null'));
  const manager = createToolServerManager({ logger, resolve: (name) => process.env[name] });
  try {
    const t0 = performance.now();
    await manager.apply(company(count, round) as unknown as Company);
    const t1 = performance.now();
    if (manager.toolsFor('agent-0').length !== count) throw new Error('the seat was not offered every tool');
    manager.toolsFor('agent-1');
    const t2 = performance.now();
    manager.catalogue();
    manager.catalogue();
    const t3 = performance.now();
    return { start: t1 - t0, seatList: (t2 - t1) / 2, catalogue: (t3 - t2) / 2 };
  } finally {
    await manager.stop();
  }
}

async function getTools(node: ServedNode): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${node.url}/tools`, { headers: auth });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET /tools answered ${res.status}`);
  return performance.now() - t0;
}

interface NodeFigures {
  /** Wall-clock ms, and the node's CPU ms over the same span. */
  readonly put: number;
  readonly putCpu: number;
  readonly putOne: number;
  readonly putOneCpu: number;
  readonly boot: number;
  readonly bootCpu: number;
  readonly bootOne: number;
  readonly bootOneCpu: number;
  readonly read: number;
}

/** `PUT /config` to applied, `rounds` times with 1 tool, then with `count`; then boots on each document. */
async function nodeFigures(count: number): Promise<NodeFigures> {
  const dirs = [
    mkdtempSync(join(tmpdir(), 'svc-bench-tools-')),
    mkdtempSync(join(tmpdir(), 'svc-bench-tool-')),
  ];
  const [many, one] = dirs as [string, string];
  const puts: Array<readonly [number, number]> = [];
  const putsOne: Array<readonly [number, number]> = [];
  const reads: number[] = [];
  try {
    for (const [dir, n, into] of [
      [one, 1, putsOne],
      [many, count, puts],
    ] as const) {
      const node = await startServe({ dir });
      try {
        // The first apply loads the MCP client: a round of its own, not counted.
        for (let round = 0; round <= rounds; round += 1) {
          const t0 = performance.now();
          const c0 = cpuMs(node.pid);
          await putCompany(node, company(n, round), `round ${round}`);
          if (round > 0) into.push([performance.now() - t0, cpuMs(node.pid) - c0]);
        }
        if (n === count) for (let i = 0; i < rounds; i += 1) reads.push(await getTools(node));
      } finally {
        await node.stop();
      }
    }
    const bootTimes = async (dir: string): Promise<Array<readonly [number, number]>> => {
      const out: Array<readonly [number, number]> = [];
      for (let i = 0; i < boots; i += 1) {
        const t0 = Date.now();
        const node = await startServe({ dir });
        try {
          const applied = await node.waitForLog((l) => l.msg === 'config applied');
          out.push([Number(applied['time']) - t0, cpuMs(node.pid)]);
        } finally {
          await node.stop();
        }
      }
      return out;
    };
    const bootOne = await bootTimes(one);
    const boot = await bootTimes(many);
    const wall = (pairs: ReadonlyArray<readonly [number, number]>): number => median(pairs.map(([w]) => w));
    const cpu = (pairs: ReadonlyArray<readonly [number, number]>): number => median(pairs.map(([, c]) => c));
    return {
      put: wall(puts),
      putCpu: cpu(puts),
      putOne: wall(putsOne),
      putOneCpu: cpu(putsOne),
      boot: wall(boot),
      bootCpu: cpu(boot),
      bootOne: wall(bootOne),
      bootOneCpu: cpu(bootOne),
      read: median(reads),
    };
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const alone: number[] = [];
  for (let i = 0; i <= rounds; i += 1) {
    const took = await serverAlone(tools);
    if (i > 0) alone.push(took);
  }
  const floor = median(alone);
  console.log(`${tools} tools; ${rounds} rounds (medians; a first round warms up and is not counted)`);
  console.log(`server alone (spawn, handshake, tools/list, raw JSON-RPC): ${ms(floor)}`);

  const managed: ManagerFigures[] = [];
  const managedOne: ManagerFigures[] = [];
  for (let round = 0; round <= rounds; round += 1) {
    const many = await managerRound(tools, round);
    const one = await managerRound(1, round);
    if (round > 0) {
      managed.push(many);
      managedOne.push(one);
    }
  }
  const start = median(managed.map((f) => f.start));
  const seatList = median(managed.map((f) => f.seatList));
  const catalogue = median(managed.map((f) => f.catalogue));
  const seatListOne = median(managedOne.map((f) => f.seatList));
  const catalogueOne = median(managedOne.map((f) => f.catalogue));
  console.log(
    `manager start to listed:      ${ms(start)} (${(start / floor).toFixed(2)} x the server alone)`,
  );
  console.log(`one seat's list (toolsFor):   ${ms(seatList)} (1 tool: ${ms(seatListOne)})`);
  console.log(`catalogue:                    ${ms(catalogue)} (1 tool: ${ms(catalogueOne)})`);

  const node = await nodeFigures(tools);
  console.log(
    `svc serve, PUT /config to config applied: ${ms(node.put)}, node CPU ${ms(node.putCpu)} ` +
      `(1 tool: ${ms(node.putOne)}, CPU ${ms(node.putOneCpu)})`,
  );
  console.log(
    `svc serve, start to config applied:       ${ms(node.boot)}, node CPU ${ms(node.bootCpu)} ` +
      `(1 tool: ${ms(node.bootOne)}, CPU ${ms(node.bootOneCpu)})`,
  );
  console.log(`svc serve, GET /tools:                    ${ms(node.read)}`);
  const label = `${tools} tools`;
  report([
    row('toolservers', `manager start, ${label} (vs the server alone)`, start, 'ms', floor),
    row('toolservers', `seat tool list, ${label} (vs 1 tool)`, seatList, 'ms', seatListOne),
    row('toolservers', `catalogue, ${label} (vs 1 tool)`, catalogue, 'ms', catalogueOne),
    row(
      'toolservers',
      `PUT /config to applied, ${label} (vs 1 tool)`,
      node.put,
      'ms',
      node.putOne,
      '< 1000 ms',
    ),
    row('toolservers', `node CPU of that PUT, ${label} (vs 1 tool)`, node.putCpu, 'ms', node.putOneCpu),
    row('toolservers', `start to config applied, ${label} (vs 1 tool)`, node.boot, 'ms', node.bootOne),
    row('toolservers', `node CPU of that start, ${label} (vs 1 tool)`, node.bootCpu, 'ms', node.bootOneCpu),
    row('toolservers', `GET /tools, ${label}`, node.read, 'ms', null),
  ]);
}

await main();
