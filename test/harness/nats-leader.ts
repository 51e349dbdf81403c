/**
 * The server leading a stream on a test cluster, asked of the live servers (test and benchmark use only:
 * the project's own code reaches NATS through `bus/`).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsClusterHandle } from './nats-server.js';

/** Index in `cluster.servers` of the server leading `stream` (servers are named n1, n2, …). */
export async function streamLeader(
  cluster: NatsClusterHandle,
  stream: string,
  alive: number[],
): Promise<number> {
  const nc = await connect({ servers: alive.map((i) => cluster.urls[i]!), reconnect: false });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 1_000, checkAPI: false });
    for (;;) {
      const info = await jsm.streams.info(stream).catch(() => null);
      const leader = info?.cluster?.leader;
      if (leader) return Number(leader.replace(/^n/, '')) - 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await nc.close();
  }
}
