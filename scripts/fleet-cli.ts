/**
 * `svc fleet <verb>`: the fleet routes from a terminal, against a running node (token from SVC_TOKEN;
 * the fleet routes always need one). `status` prints the live nodes as a table (or the answer as JSON);
 * `remove` forgets a departed node, or drops a broker server, and asks for the id twice as the route does.
 */
import type { BrokerMembership, FleetAnswer } from '../schema/index.js';
import {
  helpExit,
  nodeContext,
  nodeFlagsHelp,
  parseNodeArgs,
  refuseOtherVerbsFlags,
  type NodeContext,
} from './cli-args.js';
import { requestNode } from './cli-http.js';
import { answerText } from './cli-json.js';
import {
  bool,
  list as listOf,
  nodeJson,
  nullish,
  num,
  obj,
  readAnswer,
  record,
  str,
  type Shape,
} from './cli-shape.js';
import { table } from './cli-table.js';
import { describeRefusal } from './cli-refusal.js';
import { unknownVerb } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { shapeFlag } from './cli-flags.js';
import { NODE_ID } from '../schema/index.js';

export const fleetHelp = `Usage: svc fleet <verb> [flags]

Verbs (against a running node; token from $SVC_TOKEN):
  status  [--broker] [--json]
          live nodes with roles, labels, config epoch, posture, alarms, seats, duties, store and API
          address; nodes whose presence expired; --broker adds the broker's membership and
          disagreements; --json prints the answers as JSON ({fleet, broker?})
  remove  NODE --confirm NODE [--force]
          forget a node that left (its presence and seats member record); refused while it holds a
          live lease unless --force (a live seat lease still runs out on its own)
  remove  --peer PEER --confirm PEER [--force]
          drop a broker server from the JetStream cluster by raft peer id or name; refused unless
          the broker reports it offline (a killed server reads behind its leader) or --force

${nodeFlagsHelp}
Exit codes: 0 done; 1 refused (the answer's error code is printed); 2 bad flags.
`;

/** The fields of `GET /fleet` the table prints. */
const FleetShape = obj({
  node: str,
  complete: bool,
  nodes: listOf(
    obj({
      id: str,
      roles: listOf(str),
      labels: record,
      seats: listOf(str),
      duties: listOf(str),
      store: obj({ engine: str, dir: nullish(str) }),
      sandbox: nullish(obj({ isolation: str, network: str })),
      api: nullish(obj({ host: str, port: num })),
      version: str,
    }),
  ),
  expired: listOf(obj({ node: str, expired_at: str })),
});

/** The fields of `GET /fleet/broker` the table prints. */
const BrokerShape = obj({
  engine: str,
  server: str,
  advertised: obj({ servers: listOf(str) }),
  reported: obj({
    servers: listOf(obj({ name: str, peer_id: nullish(str), leads: num, copies: num })),
    meta: nullish(obj({ leader: nullish(str) })),
  }),
  disagreements: listOf(obj({ kind: str, detail: str })),
});

/**
 * The JSON answer of a GET, or null after the refusal was written to stderr; checked for the fields the table
 * prints unless it is printed as it came (`--json`).
 */
async function read<T>(
  ctx: NodeContext<Out>,
  path: string,
  shape: Shape<unknown>,
  what: string,
  asIs: boolean,
): Promise<T | null> {
  const text = await answerText('fleet', ctx, 'GET', path);
  if (text === null) return null;
  if (!asIs) readAnswer(shape, text, what);
  return nodeJson(200, text) as T;
}

const list = (items: readonly string[]): string => (items.length === 0 ? '-' : items.join(','));

/** `1 critical: apply_stuck`; `0`; `-` when the node announced none (not evaluated yet, an earlier release). */
function alarmsCell(alarms: FleetAnswer['nodes'][number]['alarms']): string {
  if (alarms === null) return '-';
  if (alarms.count === 0) return '0';
  const more = alarms.count > alarms.names.length ? ',…' : '';
  return `${alarms.count} ${alarms.worst ?? ''}: ${alarms.names.join(',')}${more}`;
}

function printFleet(out: Out, fleet: FleetAnswer): void {
  const rows = [
    [
      'NODE',
      'ROLES',
      'LABELS',
      'EPOCH',
      'POSTURE',
      'ALARMS',
      'SEATS',
      'DUTIES',
      'STORE',
      'SANDBOX',
      'API',
      'VERSION',
    ],
  ];
  for (const node of fleet.nodes)
    rows.push([
      node.id,
      list(node.roles),
      list(Object.entries(node.labels).map(([k, v]) => `${k}=${v}`)),
      String(node.applied_epoch),
      node.posture ?? '-',
      alarmsCell(node.alarms),
      list(node.seats),
      list(node.duties),
      `${node.store.engine}${node.store.dir ? `:${node.store.dir}` : ''}`,
      node.sandbox ? `${node.sandbox.isolation}${node.sandbox.network === 'none' ? ',no-net' : ''}` : '-',
      node.api ? `${node.api.host}:${node.api.port}` : '-',
      node.version,
    ]);
  out.write(`${table(rows)}\n`);
  for (const gone of fleet.expired)
    out.write(`expired: ${gone.node} (presence ran out ${gone.expired_at})\n`);
  if (!fleet.complete) out.write(`note: ${fleet.node} could not read the whole presence table\n`);
}

function printBroker(out: Out, broker: BrokerMembership): void {
  out.write(
    `\nbroker: ${broker.engine}, connected to ${broker.server}` +
      `${broker.cluster ? ` in cluster ${broker.cluster}` : ''}; advertises ${broker.advertised.servers.join(', ')}\n`,
  );
  const rows = [['SERVER', 'PEER', 'STATE', 'LEADS', 'COPIES']];
  for (const s of broker.reported.servers)
    rows.push([
      s.name,
      s.peer_id ?? '-',
      `${s.offline ? 'offline' : s.current === false ? 'behind' : 'online'}` +
        `${s.report_age_ms !== undefined ? ` (${Math.round(s.report_age_ms / 1000)} s ago)` : ''}` +
        `${s.link_lost !== undefined ? ', link lost' : ''}`,
      String(s.leads),
      String(s.copies),
    ]);
  out.write(`${table(rows)}\n`);
  if (broker.reported.meta) out.write(`meta leader: ${broker.reported.meta.leader ?? 'none'}\n`);
  else if (broker.reported.meta_unavailable) out.write(`meta group: ${broker.reported.meta_unavailable}\n`);
  if (broker.reported.unavailable) out.write(`streams: ${broker.reported.unavailable}\n`);
  for (const d of broker.disagreements) out.write(`disagreement (${d.kind}): ${d.detail}\n`);
}

/** The live leases a `member_live` refusal lists (none when the answer is not one). */
function leasesIn(text: string): { kind: string; name: string; expires_at: string }[] {
  try {
    const body = JSON.parse(text) as { leases?: { kind: string; name: string; expires_at: string }[] };
    return Array.isArray(body.leases) ? body.leases : [];
  } catch {
    return [];
  }
}

/** Each verb's own flags, beside --url, --config, --timeout and --help. */
const fleetVerbFlags: Readonly<Record<string, readonly string[]>> = {
  status: ['broker', 'json'],
  remove: ['confirm', 'force', 'peer'],
};

export async function runFleet(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values, positionals } = parseNodeArgs(
    args,
    {
      broker: { type: 'boolean' },
      json: { type: 'boolean' },
      confirm: { type: 'string' },
      force: { type: 'boolean' },
      peer: { type: 'string' },
    },
    'fleet',
    fleetVerbFlags,
  );
  const [verb, target, ...extra] = positionals;
  const exit = helpExit(fleetHelp, values.help, verb, out, err);
  if (exit !== null) return exit;
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  refuseOtherVerbsFlags('fleet', verb!, values, fleetVerbFlags);
  // Everything this command can judge alone is judged before the node's address is read.
  if (verb !== 'status' && verb !== 'remove') throw unknownVerb('fleet', verb!, ['status', 'remove']);
  if (verb === 'status' && target !== undefined) throw new UsageError(`unexpected argument: ${target}`);
  const removing = verb === 'remove' ? removeTarget(target, values) : null;
  const ctx = await nodeContext(values, env, out, err);
  switch (verb) {
    case 'status': {
      const asIs = values.json === true;
      const fleet = await read<FleetAnswer>(ctx, '/fleet', FleetShape, 'the fleet', asIs);
      if (fleet === null) return 1;
      const broker = values.broker
        ? await read<BrokerMembership>(ctx, '/fleet/broker', BrokerShape, "the broker's membership", asIs)
        : undefined;
      if (broker === null) return 1;
      if (values.json) out.write(`${JSON.stringify(broker ? { fleet, broker } : { fleet }, null, 2)}\n`);
      else {
        printFleet(out, fleet);
        if (broker) printBroker(out, broker);
      }
      return 0;
    }
    case 'remove': {
      const { id, peer } = removing!;
      const query = new URLSearchParams({ confirm: id });
      if (values.force) query.set('force', 'true');
      const path = peer ? 'remove-peer' : 'remove';
      const response = await requestNode(
        'fleet',
        ctx,
        'POST',
        `/fleet/broker/${path}/${encodeURIComponent(id)}?${query.toString()}`,
      );
      if (response === null) return 1;
      const text = await response.text();
      if (!response.ok) {
        // The route's hints name its query (`?force=true`); here they are this command's flags.
        err.write(describeRefusal(response.status, text, 'fleet').replaceAll('?force=true', '--force'));
        for (const lease of leasesIn(text))
          err.write(`  live ${lease.kind} ${lease.name} until ${lease.expires_at}\n`);
        return 1;
      }
      nodeJson(response.status, text);
      out.write(text.endsWith('\n') ? text : `${text}\n`);
      return 0;
    }
  }
}

/** `remove NODE` or `remove --peer PEER`, with `--confirm` repeating the id: the id, or a usage error. */
function removeTarget(
  target: string | undefined,
  values: { readonly peer?: string; readonly confirm?: string },
): { id: string; peer: boolean } {
  const peer = values.peer;
  if ((peer === undefined) === (target === undefined))
    throw new UsageError('svc fleet remove needs NODE, or --peer PEER (not both)');
  const id = (peer ?? target)!;
  // No node can bear an id outside the grammar (the route says so with 400 bad_params).
  shapeFlag('NODE', target, (node) => NODE_ID.test(node), 'a node id: letters, digits, _ and - (at most 64)');
  if (peer === '') throw new UsageError('--peer needs a broker server: its name or raft peer id');
  if (values.confirm === undefined)
    throw new UsageError(`svc fleet remove needs --confirm ${id} (the id again)`);
  if (values.confirm !== id) throw new UsageError(`--confirm ${values.confirm} does not repeat the id ${id}`);
  return { id, peer: peer !== undefined };
}
