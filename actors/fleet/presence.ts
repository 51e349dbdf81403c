/**
 * This node's presence lease, `presence.<node>` in `svc_coord` (DESIGN.md: node presence). Rewritten
 * on a timer (a third of the ttl) and at once when what it shows changes (the applied epoch), removed
 * on a graceful stop, left to expire when the process dies. Presence is not contended: one process
 * writes one node id, so a plain put does; a second process writing the same id is a duplicate, and
 * both then report admission withheld until the other's record expires.
 *
 * The probe facts (`nodes`, `presence`, `admissionWithheld`) are read from the background view, never
 * from the bus (spec "Limits": the probe coordination budget).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Bus, Kv, Subscription } from '../../bus/index.js';
import type { NodePresence } from '../../schema/index.js';
import { answerHolder } from '../lease/index.js';
import { describeProcess } from './duplicate.js';
import { presenceKeys, type FleetView, type PresenceEntry } from './fleet.view.js';

/** What the record shows of this node besides its identity and times. */
export type PresenceDescription = Omit<
  NodePresence,
  'node' | 'instance' | 'host' | 'pid' | 'renewed_at' | 'expires_at'
>;

export interface PresenceFacts {
  /** Live presence leases in the fleet; null while the table cannot be read or written, or lags. */
  readonly nodes: number | null;
  /** Whether this node's own presence record exists (live). */
  readonly presence: boolean;
  /** True while another process writes this node id's record. */
  readonly admissionWithheld: boolean;
}

export interface PresenceOptions {
  readonly coord: Kv;
  readonly view: FleetView;
  readonly nodeId: string;
  readonly logger: Logger;
  /** How long a record binds without renewal (the seat lease ttl). */
  readonly ttlMs: number;
  readonly describe: () => PresenceDescription;
  /** When given, this process answers on its instance's holder subject: a second start of the id is refused. */
  readonly bus?: Pick<Bus, 'reply'>;
  readonly now?: () => Date;
}

export interface Presence {
  facts(): PresenceFacts;
  /** With `release` (default, a graceful stop) the record goes now; without, it is left to expire. */
  stop(opts?: { release?: boolean }): Promise<void>;
}

/** How often the description is compared with what was written (a changed epoch goes out within it). */
const lookEveryMs = 250;
/** Records expired this many ttls ago are removed by any node (a crash leaves one behind). */
const sweepAfterTtls = 10;

export async function startPresence(opts: PresenceOptions): Promise<Presence> {
  const log = opts.logger.child({ component: 'presence' });
  const now = opts.now ?? (() => new Date());
  const key = presenceKeys.node(opts.nodeId);
  const instance = randomUUID();
  const renewEvery = Math.max(1, Math.floor(opts.ttlMs / 3));
  const vouchForMs = opts.ttlMs - renewEvery - Math.min(lookEveryMs, renewEvery);
  let written: { description: string; at: number; revision: number } | null = null;
  let writeOk = false;
  let firstRevision = Number.POSITIVE_INFINITY;
  let duplicateUntil = 0;
  let stopped = false;

  // A record of this node id written after our first one by another process: a duplicate node id.
  const onEntry = (entry: PresenceEntry): void => {
    if (entry.node !== opts.nodeId || entry.record === null) return;
    if (entry.record.instance === instance || entry.revision <= firstRevision) return;
    const until = new Date(entry.record.expires_at).getTime();
    if (now().getTime() >= duplicateUntil)
      log.error(
        {
          node: opts.nodeId,
          other_instance: entry.record.instance,
          other_host: entry.record.host,
          other_pid: entry.record.pid,
          other_api: entry.record.api,
        },
        `another process writes this node id: admission withheld until it stops (${describeProcess(entry.record)})`,
      );
    duplicateUntil = Math.max(duplicateUntil, until);
  };
  const unsubscribe = opts.view.onPresence(onEntry);
  const answering: Subscription | null = opts.bus ? answerHolder(opts.bus, instance) : null;

  const write = async (): Promise<void> => {
    const at = now();
    const description = opts.describe();
    const record: NodePresence = {
      node: opts.nodeId,
      instance,
      ...description,
      host: hostname(),
      pid: process.pid,
      renewed_at: at.toISOString(),
      expires_at: new Date(at.getTime() + opts.ttlMs).toISOString(),
    };
    try {
      const revision = await opts.coord.put(key, new TextEncoder().encode(JSON.stringify(record)));
      firstRevision = Math.min(firstRevision, revision);
      written = { description: JSON.stringify(description), at: at.getTime(), revision };
      if (!writeOk) log.info({ node: opts.nodeId, expires_at: record.expires_at }, 'presence written');
      writeOk = true;
    } catch (error) {
      if (writeOk) log.warn({ err: error }, 'presence renewal failed; retrying');
      writeOk = false;
    }
  };

  /** Removes records of nodes gone for ten ttls, only if unchanged since read (a returning node rewrites first). */
  const sweep = async (nowMs: number): Promise<void> => {
    for (const [node, { record, revision }] of opts.view.presences()) {
      if (node === opts.nodeId) continue;
      if (new Date(record.expires_at).getTime() > nowMs - sweepAfterTtls * opts.ttlMs) continue;
      await opts.coord
        .delete(presenceKeys.node(node), { expectedRevision: revision })
        .then(() => log.info({ node }, 'expired presence record removed'))
        .catch(() => undefined);
    }
  };

  let chain: Promise<void> = Promise.resolve();
  const enqueue = (step: () => Promise<void>): Promise<void> => (chain = chain.then(step, step));
  const look = async (): Promise<void> => {
    if (stopped) return;
    const at = now().getTime();
    const due = written === null || !writeOk || at - written.at >= renewEvery;
    if (due || JSON.stringify(opts.describe()) !== written?.description) await write();
    if (due) await sweep(at);
  };

  await enqueue(write);
  const timer = setInterval(() => void enqueue(look), Math.min(lookEveryMs, renewEvery));
  timer.unref();

  return {
    facts: () => {
      const nowMs = now().getTime();
      const own = opts.view.presences().get(opts.nodeId);
      const ownLive = own !== undefined && new Date(own.record.expires_at).getTime() > nowMs;
      // Our write is acknowledged before the watch reports it: the write vouches until the view catches up.
      const pending = written !== null && writeOk && opts.view.seenRevision(opts.nodeId) < written.revision;
      // A renewal still retrying (a cut link) has not failed yet, but the record it renews has expired:
      // the count then says nothing, not "no node at all".
      const overdue = written === null || nowMs - written.at >= opts.ttlMs;
      // The watch is known current up to our own renewal it last delivered. A live peer renews once a
      // period (plus one look), so the last of its renewals before that one expires at least
      // ttl - period - look after it: past that age, a peer can look expired only because the watch is
      // behind (a cut link, a process resumed after a pause, a stalled consumer), its renewal unseen.
      const behind =
        own !== undefined &&
        own.record.instance === instance &&
        nowMs - new Date(own.record.renewed_at).getTime() >= vouchForMs;
      return {
        nodes:
          opts.view.ready() && writeOk && !overdue && !behind
            ? opts.view.live(nowMs).length + (pending && !ownLive ? 1 : 0)
            : null,
        // Start awaits the first write: a record that is not there now (write failed, removed) is absent.
        presence: ownLive || pending,
        admissionWithheld: nowMs < duplicateUntil,
      };
    },
    stop: async (stopOpts) => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      await answering?.stop();
      await chain;
      if (!(stopOpts?.release ?? true) || written === null) return;
      await opts.coord
        .delete(key, { expectedRevision: written.revision })
        .then(() => log.info({ node: opts.nodeId }, 'presence removed'))
        .catch((error: unknown) =>
          log.warn({ err: error }, 'presence removal failed; it expires on its own'),
        );
    },
  };
}
