/**
 * Calls that ride out a stream leader election. A publish: While a replicated stream elects a new leader
 * (seconds after its leader died) nobody answers its subjects, which the client reports as "no
 * responders", exactly as for a subject no stream captures. Nothing was stored then, so the publish is
 * sent again until the stream answers or the budget runs out; a subject that no stream captures is
 * still refused at once. A publish that timed out may have been stored: it is sent again only when a
 * message id makes the repeat a duplicate the stream drops. A publish in flight when the link drops is
 * treated as timed out at once: the server it went to may be gone, and its answer with it.
 */
import {
  jetstreamManager,
  type JetStreamManager,
  type JetStreamPublishOptions,
  type PubAck,
} from '@nats-io/jetstream';
import { untilLinkDrops, type EngineHost } from './host.js';
import { isNoResponders, isTimeout } from './translate.js';

/** How long one call keeps trying through an election (a 3-server election takes 4–9 s). */
export const publishBudgetMs = 10_000;
/** One attempt of an idempotent publish: short, so a request lost with a dead server is sent again soon. */
const idempotentAttemptMs = 2_500;
export const retryMs = 200;

const quickManagers = new WeakMap<EngineHost, Promise<JetStreamManager>>();

/** A manager whose calls give up after 1 s, so a request the dead leader never answers is asked again. */
function quickManager(host: EngineHost): Promise<JetStreamManager> {
  let jsm = quickManagers.get(host);
  if (!jsm) {
    jsm = jetstreamManager(host.nc, { timeout: 1_000, checkAPI: false });
    quickManagers.set(host, jsm);
  }
  return jsm;
}

/** True when a stream captures `subject` (its leader is being elected), or when that cannot be told now. */
async function streamCaptures(host: EngineHost, subject: string): Promise<boolean> {
  try {
    await (await quickManager(host)).streams.find(subject);
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
      return await untilLinkDrops(
        host,
        host.js.publish(subject, data, {
          ...opts,
          ...(idempotent ? { timeout: idempotentAttemptMs } : {}),
        }),
      );
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

/**
 * A read only the stream leader answers (a message by sequence or by subject): asked with quick attempts
 * until the budget runs out, since a read repeated is harmless and a new leader answers within seconds.
 */
export async function readThroughElection<T>(
  host: EngineHost,
  read: (jsm: JetStreamManager) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + publishBudgetMs;
  for (;;) {
    await host.ready();
    try {
      return await read(await quickManager(host));
    } catch (error) {
      if (Date.now() >= deadline || !(isTimeout(error) || isNoResponders(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
