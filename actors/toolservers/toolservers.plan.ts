/**
 * Which tool-server instances a company document asks this node to run (spec "MCP tool-server
 * entry", `mcp_env` on seats and units): one per shared server (`shared` omitted or true), one per
 * agent seat for a `shared: false` server (never for human seats), each with its effective env — the entry's `env`, then the
 * unit `mcp_env` inherited down the unit tree (nearer units win), then the seat's own `mcp_env`.
 * Pure: no I/O, no resolution of `${VAR}` (see `resolveInstance`).
 */
import { walkCompany, type Company, type McpServer } from '../../schema/index.js';

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

/** Agent seats in document order with the `mcp_env` their units pass down (nearer units win) and their own. */
export function agentSeats(company: Company): AgentSeat[] {
  const walk = walkCompany(company);
  return walk.seats
    .filter((placed) => placed.kind === 'agent')
    .map((placed) => ({
      handle: placed.handle,
      env: [...walk.chain(placed.unit).map((u) => u.unit.mcp_env), placed.seat.mcp_env].reduce<EnvByServer>(
        (outer, inner) => overlay(outer, inner ?? {}),
        {},
      ),
    }));
}

export function planInstances(company: Company): Plan {
  const instances = new Map<string, InstanceSpec>();
  const skipped: Array<{ index: number; reason: string }> = [];
  const seats = agentSeats(company);
  const names = new Set<string>();
  (company.mcp_servers ?? []).forEach((entry, index) => {
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
