/**
 * A notification transport whose apply fails late: another client already holds its durable on the events
 * stream as a push consumer, so the node cannot pull it. A revision that adds it fails at the
 * restart-required items (after org, turn engine and providers) and rolls the node back: `isolated`.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Test } from 'tap';
import { durableOf } from '../../actors/notify/notify.host.js';
import { Streams } from '../../bus/index.js';

/** Holds transport `ops`'s durable on `natsUrl`; resolves with the `notification_transports` that add it. */
export async function squattedTransport(t: Test, natsUrl: string): Promise<Record<string, unknown>> {
  const nc = await connect({ servers: natsUrl });
  t.teardown(() => nc.close());
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(Streams.Events, {
    durable_name: durableOf('ops'),
    deliver_subject: 'squatter.ops',
    ack_policy: 'explicit',
  });
  return {
    ops: {
      type: 'webhook',
      url: 'http://127.0.0.1:9/hooks/svc',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      events: ['webhook_received'],
    },
  };
}
