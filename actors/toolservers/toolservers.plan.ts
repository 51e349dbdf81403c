/**
 * Which tool-server instances a company document asks this node to run (spec "MCP tool-server
 * entry", `mcp_env` on seats and units): one per shared server (`shared` omitted or true), one per
 * agent seat for a `shared: false` server (never for human seats), each with its effective env — the entry's `env`, then the
 * unit `mcp_env` inherited down the unit tree (nearer units win), then the seat's own `mcp_env`.
 * Pure: no I/O, no resolution of `${VAR}` (see `resolveInstance`).
 */
import { McpServer, seatIdentity } from '../../schema/index.js';
import { isRecord, type JsonObject as Json } from '../../schema/index.js';

/** Tool-server name -> env name -> value. */
type EnvByServer = Record<string, Record<string, string>>;

export interface InstanceSpec {
  /** `server` for a shared instance, `server@handle` for a seat's. */
  readonly key: string;
  readonly server: string;
  readonly seat: string | null;
  readonly shared: boolean;
  readonly entry: McpServer;
  /** Effective env before `${VAR}` resolution. */
  readonly env: Readonly<Record<string, string>>;
  readonly prefix: string;
  /** Position of the entry in `mcp_servers`: the first of two servers serving one name wins. */
  readonly order: number;
}

export interface Plan {
  readonly instances: ReadonlyMap<string, InstanceSpec>;
  /** Entries left out, with why (logged by the manager). */
  readonly skipped: ReadonlyArray<{ readonly index: number; readonly reason: string }>;
}

export const instanceKey = (server: string, seat: string | null): string =>
  seat === null ? server : `${server}@${seat}`;

/** Only string values count: the schema refuses others, and a skipped value is safer than a guessed one. */
function envMap(value: unknown): EnvByServer {
  if (!isRecord(value)) return {};
  const out: EnvByServer = {};
  for (const [server, vars] of Object.entries(value)) {
    if (!isRecord(vars)) continue;
    out[server] = Object.fromEntries(
      Object.entries(vars).filter((pair): pair is [string, string] => typeof pair[1] === 'string'),
    );
  }
  return out;
}

/** `inner` over `outer`, server by server and name by name. */
function overlay(outer: EnvByServer, inner: EnvByServer): EnvByServer {
  const out: EnvByServer = { ...outer };
  for (const [server, vars] of Object.entries(inner)) out[server] = { ...(outer[server] ?? {}), ...vars };
  return out;
}

interface AgentSeat {
  readonly handle: string;
  readonly env: EnvByServer;
}

/** Agent seats in document order with the `mcp_env` they inherit and carry; the first of a handle wins. */
export function agentSeats(document: unknown): AgentSeat[] {
  if (!isRecord(document)) return [];
  const seats: AgentSeat[] = [];
  const unitEnvByName = new Map<string, EnvByServer>();
  const pending: Array<{ raw: Json; inherited: EnvByServer | null }> = [];
  const addSeats = (list: unknown, inherited: EnvByServer | null): void => {
    if (!Array.isArray(list)) return;
    for (const raw of list) if (isRecord(raw)) pending.push({ raw, inherited });
  };
  const addUnits = (list: unknown, parent: EnvByServer): void => {
    if (!Array.isArray(list)) return;
    for (const unit of list) {
      if (!isRecord(unit)) continue;
      const env = overlay(parent, envMap(unit['mcp_env']));
      if (typeof unit['name'] === 'string' && !unitEnvByName.has(unit['name']))
        unitEnvByName.set(unit['name'], env);
      addSeats(unit['roles'], env);
      addUnits(unit['children'], env);
    }
  };
  addSeats(document['roles'], null);
  addUnits(document['units'], {});

  const seen = new Set<string>();
  for (const { raw, inherited } of pending) {
    if (raw['kind'] === 'human') continue;
    const handle = seatIdentity(raw);
    if (handle === null || seen.has(handle)) continue;
    seen.add(handle);
    // A root-level seat lands in the unit its `unit` field names and inherits from there.
    const placed =
      inherited ?? (typeof raw['unit'] === 'string' ? (unitEnvByName.get(raw['unit']) ?? {}) : {});
    seats.push({ handle, env: overlay(placed, envMap(raw['mcp_env'])) });
  }
  return seats;
}

export function planInstances(document: unknown): Plan {
  const instances = new Map<string, InstanceSpec>();
  const skipped: Array<{ index: number; reason: string }> = [];
  const list = isRecord(document) && Array.isArray(document['mcp_servers']) ? document['mcp_servers'] : [];
  const seats = agentSeats(document);
  const names = new Set<string>();
  list.forEach((raw: unknown, index) => {
    const parsed = McpServer.safeParse(raw);
    if (!parsed.success) return skipped.push({ index, reason: 'not a valid tool-server entry' });
    const entry = parsed.data;
    if ((entry.command === undefined) === (entry.url === undefined))
      return skipped.push({ index, reason: 'needs exactly one of command and url' });
    if (names.has(entry.name)) return skipped.push({ index, reason: `second entry named ${entry.name}` });
    names.add(entry.name);
    const base = {
      server: entry.name,
      // Omitted `shared` means one process for the company: per-seat processes are opt-in.
      shared: entry.shared !== false,
      entry,
      prefix: entry.tool_prefix ?? '',
      order: index,
    };
    if (base.shared) {
      instances.set(entry.name, { ...base, key: entry.name, seat: null, env: { ...(entry.env ?? {}) } });
      return undefined;
    }
    for (const seat of seats) {
      const key = instanceKey(entry.name, seat.handle);
      instances.set(key, {
        ...base,
        key,
        seat: seat.handle,
        env: { ...(entry.env ?? {}), ...(seat.env[entry.name] ?? {}) },
      });
    }
    return undefined;
  });
  return { instances, skipped };
}
