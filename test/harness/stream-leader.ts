/**
 * Which server of a `startNatsCluster` cluster leads a stream (`$JS.API.STREAM.INFO` cluster.leader), asked
 * of the servers still alive until one names a leader: the failover tests kill that server.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/**
 * The index in the cluster's `servers` of the server leading `stream` (servers are named n1, n2, ...),
 * once `alive` report one; rejects after `timeoutMs`.
 */
export async function streamLeader(
  urls: readonly string[],
  stream: string,
  alive: readonly number[],
  timeoutMs = 30_000,
): Promise<number> {
  const nc = await connect({ servers: alive.map((i) => urls[i]!), reconnect: false });
  try {
    // No API check: the metadata leader may be the server just killed.
    const jsm = await jetstreamManager(nc, { timeout: 1_000, checkAPI: false });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const info = await jsm.streams.info(stream).catch(() => null);
      const leader = info?.cluster?.leader;
      if (leader) return Number(leader.replace(/^n/, '')) - 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no leader of ${stream} within ${timeoutMs} ms`);
  } finally {
    await nc.close();
  }
}

/**
 * Resolves once, asked of the servers in `alive`, each of `streams` takes a new consumer again (which needs
 * the metadata group's leader and the stream's own) and each durable of `consumers` has a leader: after a
 * kill each of these groups elects on its own, seconds apart. The clock a follower's resumption is
 * measured from. (Account info is no proof of a metadata leader: it was answered while consumers could
 * not yet be created.)
 */
export async function leadersElected(
  urls: readonly string[],
  alive: readonly number[],
  groups: {
    readonly streams: readonly string[];
    readonly consumers: ReadonlyArray<readonly [string, string]>;
  },
  timeoutMs = 30_000,
): Promise<void> {
  const nc = await connect({ servers: alive.map((i) => urls[i]!), reconnect: false });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 500, checkAPI: false });
    const creates = (stream: string) => async () => {
      const made = await jsm.consumers.add(stream, {
        inactive_threshold: 5_000_000_000,
        mem_storage: true,
        num_replicas: 1,
      });
      await jsm.consumers.delete(stream, made.name).catch(() => undefined);
    };
    const checks: Array<[string, () => Promise<unknown>]> = [
      ...groups.streams.map((stream): [string, () => Promise<unknown>] => [stream, creates(stream)]),
      ...groups.consumers.map(([stream, durable]): [string, () => Promise<unknown>] => [
        `${stream}/${durable}`,
        async () =>
          (await jsm.consumers.info(stream, durable)).cluster?.leader || Promise.reject(new Error('none')),
      ]),
    ];
    const deadline = Date.now() + timeoutMs;
    for (const [name, check] of checks) {
      while (
        !(await check().then(
          () => true,
          () => false,
        ))
      ) {
        if (Date.now() > deadline) throw new Error(`${name} elected no leader within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    await nc.close();
  }
}
