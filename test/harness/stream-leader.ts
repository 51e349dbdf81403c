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
 * Resolves once, asked of the servers in `alive`, the metadata group has a leader (account info is its
 * answer), and so have each of `streams` and each durable of `consumers`: after a kill each of these groups
 * elects on its own (seconds apart), and a follower needs its stream's, its consumer's and — to create
 * a consumer — the metadata leader. The clock a follower's resumption is measured from.
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
    const checks: Array<[string, () => Promise<unknown>]> = [
      ['the metadata group', () => jsm.getAccountInfo()],
      ...groups.streams.map((stream): [string, () => Promise<unknown>] => [
        stream,
        async () => (await jsm.streams.info(stream)).cluster?.leader || Promise.reject(new Error('none')),
      ]),
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
