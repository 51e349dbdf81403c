/**
 * Replica counts on JetStream (`providers.queue.replicas`): the start check that the cluster has a server
 * for every copy, and the rule that an existing stream or bucket is raised to the configured count but
 * never lowered below what an operator chose.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { EngineUnavailableError } from '../errors.js';
import type { EngineHost } from './host.js';

/** What the start check reads: the connection's server INFO and the JetStream API. */
export interface ClusterProbe {
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly logger: Logger;
  /** The url as shown to people (credentials removed). */
  readonly shownUrl: string;
}

const advice = (replicas: number): string =>
  `run a cluster of at least ${replicas} JetStream servers (ops/jetstream.md) or lower providers.queue.replicas`;

/**
 * Refuses a replica count the cluster cannot hold. The connected server's INFO says whether it is
 * clustered and which servers it routes to (`connect_urls`); when fewer answer than the count, the peers
 * of existing streams (offline ones included) tell a server that is down from one that never was.
 */
export async function checkClusterSize(probe: ClusterProbe, replicas: number): Promise<void> {
  if (replicas <= 1) return;
  const info = probe.nc.info;
  const server = info?.server_name ?? 'unknown';
  if (!info?.cluster) {
    throw new EngineUnavailableError(
      `providers.queue.replicas is ${replicas}, but the NATS server at ${probe.shownUrl} (${server}) ` +
        `is not part of a cluster: a single server keeps one copy; ${advice(replicas)}`,
    );
  }
  // A cluster with `no_advertise` names no peers: placement decides then (ensureStream refuses clearly).
  if (!info.connect_urls || info.connect_urls.length === 0) return;
  const routed = await routedServers(probe.nc, replicas);
  if (routed >= replicas) return;
  const known = Math.max(routed, await streamPeers(probe.jsm, replicas));
  if (known < replicas) {
    throw new EngineUnavailableError(
      `providers.queue.replicas is ${replicas}, but the NATS cluster "${info.cluster}" at ${probe.shownUrl} ` +
        `has ${known} server${known === 1 ? '' : 's'}: every copy needs its own server; ${advice(replicas)}`,
    );
  }
  probe.logger.warn(
    { cluster: info.cluster, servers_up: routed, servers_known: known, replicas },
    'bus: fewer NATS servers answer than there are replicas; existing streams run on a quorum, new ones cannot be placed until the others return',
  );
}

/** How long a node starting with its cluster waits for the routes to form before it counts servers. */
const CLUSTER_FORMING_MS = 5_000;

/**
 * Servers the connected one routes to (its INFO's `connect_urls`, which the server updates as routes come
 * up): read until `enough` answer or CLUSTER_FORMING_MS passes, so a node started together with its
 * cluster is not refused for a route still forming.
 */
async function routedServers(nc: NatsConnection, enough: number): Promise<number> {
  const count = (): number => new Set(nc.info?.connect_urls ?? []).size;
  const deadline = Date.now() + CLUSTER_FORMING_MS;
  while (count() < enough && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return count();
}

/** Distinct servers holding a copy of any stream of the account; stops counting at `enough`. */
async function streamPeers(jsm: JetStreamManager, enough: number): Promise<number> {
  const names = new Set<string>();
  for await (const stream of jsm.streams.list()) {
    const cluster = stream.cluster;
    if (cluster?.leader) names.add(cluster.leader);
    for (const peer of cluster?.replicas ?? []) names.add(peer.name);
    if (names.size >= enough) break;
  }
  return names.size;
}

/**
 * The replica count to give an existing stream: the configured one, or more when an operator scaled it
 * up (never lowered; the warning names the stream and both counts).
 */
export function replicasFor(host: EngineHost, stream: string, existing: number): number {
  if (existing > host.replicas) {
    host.logger.warn(
      { stream, replicas: existing, configured: host.replicas },
      'bus: stream has more replicas than configured; kept (svc never lowers a replica count)',
    );
    return existing;
  }
  if (existing < host.replicas) {
    host.logger.info(
      { stream, from: existing, to: host.replicas },
      'bus: stream raised to the configured replicas',
    );
  }
  return host.replicas;
}

/** A placement refusal ("no suitable peers") as the start problem it is. */
export function placementRefused(host: EngineHost, stream: string, cause: unknown): EngineUnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new EngineUnavailableError(
    `stream ${stream}: the NATS cluster cannot place ${host.replicas} replicas (${reason}); ${advice(host.replicas)}`,
    { cause },
  );
}
