/**
 * A stream publish that rides out a leader election. While a replicated stream elects a new leader
 * (seconds after its leader died) nobody answers its subjects, which the client reports as "no
 * responders", exactly as for a subject no stream captures. Nothing was stored then, so the publish is
 * sent again until the stream answers or the budget runs out; a subject that no stream captures is
 * still refused at once. A publish that timed out may have been stored: it is sent again only when a
 * message id makes the repeat a duplicate the stream drops.
 */
import {
  jetstreamManager,
  type JetStreamManager,
  type JetStreamPublishOptions,
  type PubAck,
} from '@nats-io/jetstream';
import type { EngineHost } from './host.js';
import { isNoResponders, isTimeout } from './translate.js';

/** How long one publish keeps trying through an election (a 3-server election takes 4–9 s). */
export const publishBudgetMs = 10_000;
/** One attempt of an idempotent publish: short, so a request lost with a dead server is sent again soon. */
const idempotentAttemptMs = 2_500;
const retryMs = 200;

const quickManagers = new WeakMap<EngineHost, Promise<JetStreamManager>>();

/** True when a stream captures `subject` (its leader is being elected), or when that cannot be told now. */
async function streamCaptures(host: EngineHost, subject: string): Promise<boolean> {
  let jsm = quickManagers.get(host);
  if (!jsm) {
    jsm = jetstreamManager(host.nc, { timeout: 2_000, checkAPI: false });
    quickManagers.set(host, jsm);
  }
  try {
    await (await jsm).streams.find(subject);
    return true;
  } catch (error) {
    // "no stream matches subject" is the one answer that says nothing will ever capture it.
    return !/no stream matches/i.test(error instanceof Error ? error.message : String(error));
  }
}

/** Publishes through `host.js`, retrying while the capturing stream has no leader (see above). */
export async function publishThroughElection(
  host: EngineHost,
  subject: string,
  data: Uint8Array,
  opts: Partial<JetStreamPublishOptions>,
): Promise<PubAck> {
  const idempotent = opts.msgID !== undefined;
  const deadline = Date.now() + publishBudgetMs;
  for (;;) {
    await host.ready();
    try {
      return await host.js.publish(subject, data, {
        ...opts,
        ...(idempotent ? { timeout: idempotentAttemptMs } : {}),
      });
    } catch (error) {
      const again =
        Date.now() < deadline &&
        ((isNoResponders(error) && (await streamCaptures(host, subject))) ||
          (idempotent && isTimeout(error)));
      if (!again) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
