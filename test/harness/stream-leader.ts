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
