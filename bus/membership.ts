/**
 * Broker membership (`GET /fleet/broker`) assembled from what an engine could read: the servers the
 * connected one advertises, the meta group when readable, and every stream's copies. Pure, so both
 * engines and the unit tests share the rules that name a disagreement.
 */
import type {
  BrokerDisagreement,
  BrokerMembership,
  BrokerPeer,
  BrokerServer,
  BrokerStream,
} from '../schema/index.js';

export interface MembershipReading {
  readonly engine: BrokerMembership['engine'];
  readonly server: string;
  readonly cluster: string | null;
  readonly advertised: readonly string[];
  readonly meta: BrokerMembership['reported']['meta'];
  readonly metaUnavailable?: string;
  readonly streams: readonly BrokerStream[];
  readonly unavailable?: string;
}

/** The longer of two silences (a server is as quiet as its quietest report says). */
const longest = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.max(a, b);

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Every server the meta group or a stream names, with what it leads and holds. */
function serversOf(reading: MembershipReading): BrokerServer[] {
  const byName = new Map<string, BrokerServer>();
  const note = (peer: BrokerPeer, lead: boolean): void => {
    const known = byName.get(peer.name);
    const merged: BrokerServer = {
      name: peer.name,
      peer_id: known?.peer_id ?? peer.peer_id,
      // A report that it is behind or offline wins over one that it is fine.
      current: known?.current === false || peer.current === false ? false : (known?.current ?? peer.current),
      offline: (known?.offline ?? false) || peer.offline,
      active_ms: longest(known?.active_ms ?? null, peer.active_ms),
      leads: (known?.leads ?? 0) + (lead ? 1 : 0),
      copies: known?.copies ?? 0,
    };
    byName.set(peer.name, merged);
  };
  const blank = (name: string): BrokerPeer => ({
    name,
    peer_id: null,
    current: null,
    offline: false,
    active_ms: null,
  });
  if (reading.meta) {
    if (reading.meta.leader) note(blank(reading.meta.leader), false);
    for (const peer of reading.meta.peers) note(peer, false);
  }
  for (const stream of reading.streams) {
    if (stream.leader) {
      note(blank(stream.leader), true);
      const server = byName.get(stream.leader)!;
      byName.set(stream.leader, { ...server, copies: server.copies + 1 });
    }
    for (const follower of stream.followers) {
      note(follower, false);
      const server = byName.get(follower.name)!;
      byName.set(follower.name, { ...server, copies: server.copies + 1 });
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The disagreements between what is advertised and what is reported, and inside the reports. */
function disagreementsOf(reading: MembershipReading, servers: readonly BrokerServer[]): BrokerDisagreement[] {
  const out: BrokerDisagreement[] = [];
  const advertised = new Set(reading.advertised).size;
  if (reading.meta) {
    const size = reading.meta.cluster_size ?? servers.length;
    if (size !== advertised)
      out.push({
        kind: 'count',
        detail: `the meta group has ${plural(size, 'server')}; the connected server advertises ${advertised}`,
      });
  } else if (servers.length > advertised) {
    // Without the meta group only more is telling: a server holding no copy is named by no stream.
    out.push({
      kind: 'count',
      detail: `streams name ${plural(servers.length, 'server')}; the connected server advertises ${advertised}`,
    });
  }
  for (const server of servers) {
    if (server.offline)
      out.push({ kind: 'offline', server: server.name, detail: `${server.name} is reported offline` });
    else if (server.current === false)
      out.push({
        kind: 'lagging',
        server: server.name,
        detail: `${server.name} is reported behind its leader`,
      });
  }
  for (const stream of reading.streams) {
    if (stream.leader === null)
      out.push({ kind: 'leaderless', stream: stream.name, detail: `${stream.name} has no leader` });
    const copies = (stream.leader === null ? 0 : 1) + stream.followers.length;
    if (copies < stream.replicas)
      out.push({
        kind: 'under_replicated',
        stream: stream.name,
        detail: `${stream.name} is configured with ${stream.replicas} replicas and ${copies} are reported`,
      });
  }
  return out;
}

export function assembleMembership(reading: MembershipReading): BrokerMembership {
  const servers = serversOf(reading);
  return {
    engine: reading.engine,
    server: reading.server,
    cluster: reading.cluster,
    advertised: { servers: [...new Set(reading.advertised)].sort() },
    reported: {
      meta: reading.meta,
      ...(reading.metaUnavailable !== undefined ? { meta_unavailable: reading.metaUnavailable } : {}),
      servers,
      streams: [...reading.streams],
      ...(reading.unavailable !== undefined ? { unavailable: reading.unavailable } : {}),
    },
    disagreements: disagreementsOf(reading, servers),
  };
}

/** The memory engine: the bus runs inside this node, one member that agrees with itself. */
export function localMembership(): BrokerMembership {
  return assembleMembership({
    engine: 'memory',
    server: 'local',
    cluster: null,
    advertised: ['local'],
    meta: {
      leader: 'local',
      cluster_size: 1,
      peers: [],
    },
    streams: [],
  });
}

/** The last report whose streams could be listed: its servers, the server it came through, when it was read. */
export interface LastReport {
  readonly at: Date;
  readonly server: string;
  readonly servers: readonly BrokerServer[];
}

/**
 * A reading whose streams could not be listed names the last report's servers, each aged, instead of
 * none (an operator looks right when a server died); the one this node's link to dropped is marked.
 * `linked`: whether this node's client holds a connection now. A fresh reading passes through.
 */
export function carryOver(
  fresh: BrokerMembership,
  last: LastReport | null,
  now: Date,
  linked: boolean,
): BrokerMembership {
  if (fresh.reported.unavailable === undefined || last === null || last.servers.length === 0) return fresh;
  const age = Math.max(0, now.getTime() - last.at.getTime());
  const lostLink = !linked
    ? `this node has no link to ${last.server} now (reconnecting)`
    : last.server !== fresh.server
      ? `this node's link to ${last.server} dropped; it is connected to ${fresh.server} now`
      : null;
  const servers = last.servers.map((server) => ({
    ...server,
    last_reported_at: last.at.toISOString(),
    report_age_ms: age,
    ...(lostLink !== null && (linked ? server.name === last.server : server.name === fresh.server)
      ? { link_lost: lostLink }
      : {}),
  }));
  return {
    ...fresh,
    reported: {
      ...fresh.reported,
      servers,
      unavailable: `${fresh.reported.unavailable}; the servers as last reported ${Math.round(age / 1000)} s ago`,
    },
  };
}
