/**
 * The JetStream cluster as this client can see it (`GET /fleet/broker`) and the removal of a server
 * from its meta group (`$JS.API.SERVER.REMOVE`). Advertised: the connected server's INFO (`cluster`,
 * `connect_urls`, kept current by the server's async INFO). Reported: every stream's cluster info, and
 * the meta group from `$SYS.REQ.SERVER.PING.JSZ`, which only a system-account connection can ask.
 */
import { z } from 'zod';
import type { BrokerMembership, BrokerPeer, BrokerStream, PeerRemoval } from '../../schema/index.js';
import { assembleMembership, carryOver, type LastReport } from '../membership.js';
import type { EngineHost } from './host.js';
import { isNoResponders, isTimeout } from './translate.js';

/** How long a membership read or a removal waits for the broker (an operator is looking). */
const brokerDeadlineMs = 3_000;
/** How long the meta group question waits: an account that may not ask gets no responder at once. */
const metaDeadlineMs = 1_000;

/** NATS server APIs (not svc subjects, so not in bus/subjects.ts). */
const metaPingSubject = '$SYS.REQ.SERVER.PING.JSZ';
const serverRemoveSubject = '$JS.API.SERVER.REMOVE';

const enc = new TextEncoder();
const dec = new TextDecoder();

const Replica = z.object({
  name: z.string(),
  current: z.boolean().optional(),
  offline: z.boolean().optional(),
  /** Nanoseconds since the leader last heard from it. */
  active: z.number().optional(),
  peer: z.string().optional(),
});
type Replica = z.infer<typeof Replica>;

const MetaReply = z.object({
  data: z.object({
    meta_cluster: z
      .object({
        leader: z.string().optional(),
        cluster_size: z.number().int().optional(),
        replicas: z.array(Replica).optional(),
      })
      .optional(),
  }),
});

const RemoveReply = z.object({
  success: z.boolean().optional(),
  error: z.object({ err_code: z.number().optional(), description: z.string().optional() }).optional(),
});
/** nats-server: "server is not a member of the cluster". */
const notMember = 10044;

const peerOf = (replica: Replica): BrokerPeer => ({
  name: replica.name,
  peer_id: replica.peer ?? null,
  current: replica.current ?? null,
  offline: replica.offline ?? false,
  active_ms: replica.active === undefined ? null : Math.round(replica.active / 1e6),
});

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function deadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

async function readStreams(host: EngineHost): Promise<BrokerStream[]> {
  await host.ready();
  const out: BrokerStream[] = [];
  for await (const stream of host.jsm.streams.list()) {
    const cluster = stream.cluster;
    out.push({
      name: stream.config.name,
      replicas: stream.config.num_replicas || 1,
      // A single server reports no cluster: it leads its own stream.
      leader: cluster ? (cluster.leader ?? null) : (host.nc.info?.server_name ?? null),
      followers: (cluster?.replicas ?? []).map((r) => peerOf(Replica.parse(r))),
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

async function readMeta(host: EngineHost): Promise<BrokerMembership['reported']['meta']> {
  const reply = await host.nc.request(metaPingSubject, enc.encode('{"leader_only":true}'), {
    timeout: metaDeadlineMs,
  });
  const meta = MetaReply.parse(JSON.parse(dec.decode(reply.data))).data.meta_cluster;
  if (!meta) throw new Error('the answer carried no meta group');
  return {
    leader: meta.leader ?? null,
    cluster_size: meta.cluster_size ?? null,
    peers: (meta.replicas ?? []).map(peerOf),
  };
}

/** What a bus remembers between membership reads: the last report whose streams could be listed. */
export interface MembershipMemory {
  last: LastReport | null;
}

/**
 * Reads what it can; a part the broker does not answer is named, never fatal. When the streams cannot
 * be listed, the servers of the last report `memory` holds are named, aged (`carryOver`).
 */
export async function readMembership(
  host: EngineHost,
  engine: 'jetstream' | 'jetstream-embedded',
  memory: MembershipMemory = { last: null },
): Promise<BrokerMembership> {
  const fresh = await readNow(host, engine);
  const now = new Date();
  if (fresh.reported.unavailable === undefined) {
    memory.last = { at: now, server: fresh.server, servers: fresh.reported.servers };
    return fresh;
  }
  return carryOver(fresh, memory.last, now, host.linked());
}

async function readNow(
  host: EngineHost,
  engine: 'jetstream' | 'jetstream-embedded',
): Promise<BrokerMembership> {
  host.assertOpen();
  const info = host.nc.info;
  const connected = info ? `${info.host}:${info.port}` : null;
  const advertised = info?.connect_urls?.length ? info.connect_urls : connected ? [connected] : [];
  let meta: BrokerMembership['reported']['meta'] = null;
  let metaUnavailable: string | undefined;
  let streams: BrokerStream[] = [];
  let unavailable: string | undefined;
  await Promise.all([
    readMeta(host).then(
      (value) => {
        meta = value;
      },
      (error: unknown) => {
        metaUnavailable = isNoResponders(error)
          ? "this connection's account may not read the meta group (only the system account may)"
          : `the meta group did not answer (${reasonOf(error)})`;
      },
    ),
    deadline(readStreams(host), brokerDeadlineMs, 'listing the streams').then(
      (value) => {
        streams = value;
      },
      (error: unknown) => {
        unavailable = `the streams could not be listed (${reasonOf(error)})`;
      },
    ),
  ]);
  return assembleMembership({
    engine,
    server: info?.server_name ?? 'unknown',
    cluster: info?.cluster ?? null,
    advertised,
    meta,
    ...(metaUnavailable !== undefined ? { metaUnavailable } : {}),
    streams,
    ...(unavailable !== undefined ? { unavailable } : {}),
  });
}

async function askRemoval(
  host: EngineHost,
  body: Record<string, string>,
): Promise<z.infer<typeof RemoveReply>> {
  const reply = await host.nc.request(serverRemoveSubject, enc.encode(JSON.stringify(body)), {
    timeout: brokerDeadlineMs,
  });
  return RemoveReply.parse(JSON.parse(dec.decode(reply.data)));
}

/**
 * Removes a server from the meta group, by raft peer id first, then by server name (nats-server 2.9
 * takes either). Only an account the server lets manage the cluster is answered.
 */
export async function removePeer(host: EngineHost, peer: string): Promise<PeerRemoval> {
  host.assertOpen();
  try {
    await host.ready();
    let reply = await askRemoval(host, { peer_id: peer });
    if (reply.error?.err_code === notMember) reply = await askRemoval(host, { peer });
    if (reply.success === true) return { removed: true, server: peer };
    if (reply.error?.err_code === notMember)
      return { removed: false, reason: 'unknown_peer', detail: `${peer} is not a member of the cluster` };
    return {
      removed: false,
      reason: 'refused',
      detail: `the broker refused: ${reply.error?.description ?? 'no reason given'}`,
    };
  } catch (error) {
    if (isNoResponders(error) || isTimeout(error))
      return {
        removed: false,
        reason: 'unanswered',
        detail: 'no server answered $JS.API.SERVER.REMOVE for this connection',
      };
    return {
      removed: false,
      reason: 'unanswered',
      detail: `the broker could not be asked (${reasonOf(error)})`,
    };
  }
}
