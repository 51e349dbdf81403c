/**
 * A `svc serve` child on the JetStream engine of its own nats-server, and a bus client of that server with
 * the command catalogue ensured: what a test needs to queue wakes for the node's seats (test/harness/wake.ts).
 * The server comes back too, for a test that serves a second node on it or reaches it past the bus.
 */
import type { Test } from 'tap';
import { ensureCatalogue, openBus, type Bus } from '../../bus/index.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';
import { startNode, type ServedNode } from './serve-node.js';

export async function startBusNode(
  t: Test,
  extra = '',
): Promise<{ node: ServedNode; bus: Bus; nats: NatsServerHandle }> {
  const nats = await startNatsServer({ t });
  const node = await startNode(t, extra, `jetstream, url: "${nats.url}"`);
  const bus = await openBus({ type: 'jetstream', url: nats.url });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  return { node, bus, nats };
}
