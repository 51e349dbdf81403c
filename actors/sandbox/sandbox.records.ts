/**
 * Every node's view of the run records (SVC_SANDBOX): replayed at start, then followed. The newest record
 * per run is the run. Token lookups (`/otlp`, `/mcp`) and the 30 s reconcile read it; the supervisor of
 * the node that launched a run writes its records through `put` (applied at once, so its own reads never
 * trail its writes). An ended run is kept ENDED_RUN_KEEP_MS after its end, then dropped from every node's
 * memory and, once no run's newest record lies below them, its records leave the stream (`prune`, at start
 * and every hour). A live run is never dropped: its supervisor stores it again at least daily
 * (`storedAt`), so its newest record never pins the stream's trim for long; one whose node left the fleet
 * and stored nothing of it for 30 days is recorded ended as lost by another node (sandbox.lost.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus, type Subscription } from '../../bus/index.js';
import { Payloads, SandboxRunRecord } from '../../schema/index.js';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** How long an ended run stays in `/sandbox-runs` and the stream (as long as the event history). */
export const ENDED_RUN_KEEP_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Where a change came from: this node's own `put`, or a record followed from the stream. */
type ChangeOrigin = 'put' | 'followed';
type ChangeListener = (run: SandboxRunRecord, origin: ChangeOrigin) => void;

export interface SandboxRecords {
  get(id: string): SandboxRunRecord | undefined;
  all(): SandboxRunRecord[];
  /**
   * The live run whose path token this is; null for a token of no run or of an ended one. Found by the
   * token's digest, confirmed digest to digest in constant time.
   */
  byToken(token: string): SandboxRunRecord | null;
  put(run: SandboxRunRecord): Promise<void>;
  /** When the run's newest record was stored (ms since the epoch). */
  storedAt(id: string): number | undefined;
  /**
   * Drops ended runs past their keep from memory, then trims the stream below the oldest record still
   * needed (the newest of every run kept).
   */
  prune(): Promise<void>;
  /** Called after every change of any run (own writes and followed ones). */
  onChange(listener: ChangeListener): () => void;
  stop(): Promise<void>;
}

export async function openSandboxRecords(opts: {
  readonly bus: Bus;
  readonly node: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Default ENDED_RUN_KEEP_MS. */
  readonly keepEndedMs?: number;
}): Promise<SandboxRecords> {
  const now = opts.now ?? (() => new Date());
  const keepEndedMs = opts.keepEndedMs ?? ENDED_RUN_KEEP_MS;
  const runs = new Map<string, SandboxRunRecord>();
  /** Per run: the stream sequence and store time of its newest record. */
  const stored = new Map<string, { readonly seq: number; readonly at: number }>();
  /** Token digest → live run id, kept in step with `runs`: a lookup is one probe, whatever the runs. */
  const liveByDigest = new Map<string, string>();
  const keep = (run: SandboxRunRecord, seq: number, at: number): void => {
    stored.set(run.sandbox_id, { seq, at });
    const before = runs.get(run.sandbox_id);
    if (before && liveByDigest.get(before.token_sha256) === run.sandbox_id)
      liveByDigest.delete(before.token_sha256);
    runs.set(run.sandbox_id, run);
    // An ended run's token is refused from then on: it leaves the index.
    if (isLive(run)) liveByDigest.set(run.token_sha256, run.sandbox_id);
  };
  const listeners = new Set<ChangeListener>();
  const changed = (run: SandboxRunRecord, origin: ChangeOrigin): void => {
    for (const listener of listeners) listener(run, origin);
  };
  const decode = (data: Uint8Array): SandboxRunRecord | null => {
    try {
      const parsed = SandboxRunRecord.safeParse(JSON.parse(decoder.decode(data)));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  /** The records this node's puts are publishing right now, as sent. */
  const publishing = new Set<string>();
  let last = 0;
  for await (const msg of opts.bus.replay(Streams.Sandbox)) {
    last = msg.seq;
    const run = decode(msg.data);
    if (run) keep(run, msg.seq, msg.time.getTime());
    else opts.logger.warn({ seq: msg.seq }, 'sandbox record skipped: not a run record');
  }
  // Runs this node launched are written here first (`put`): of them the follow takes only a record newer
  // than the node's own newest, one another node wrote (a run it recorded lost); the echo of a put is not.
  const sub: Subscription = await opts.bus.follow(Streams.Sandbox, { fromSeq: last + 1 }, (msg) => {
    // Followed in order: everything up to here has been seen (a put's own sequence does not say that).
    last = msg.seq;
    const run = decode(msg.data);
    if (!run) return;
    if (run.node === opts.node) {
      if (msg.seq <= (stored.get(run.sandbox_id)?.seq ?? 0)) return;
      // A put's echo may come before its acknowledgement: still this node's own write.
      if (publishing.has(decoder.decode(msg.data))) return;
    }
    keep(run, msg.seq, msg.time.getTime());
    changed(run, 'followed');
  });
  const prune = async (): Promise<void> => {
    const floor = now().getTime() - keepEndedMs;
    for (const [id, run] of runs)
      if (!isLive(run) && Date.parse(run.updated_at) < floor) {
        runs.delete(id);
        stored.delete(id);
      }
    // Below the oldest record still needed everything is superseded or past its keep. A record this node
    // has not seen yet lies above `last`, and a run's newer record above the one seen: never below.
    let below = last + 1;
    for (const { seq } of stored.values()) below = Math.min(below, seq);
    const info = await opts.bus.streamInfo(Streams.Sandbox);
    if (below > info.firstSeq) await opts.bus.purgeBelow(Streams.Sandbox, below);
  };
  await prune();
  const pruner = setInterval(() => {
    prune().catch((error: unknown) => opts.logger.warn({ err: error }, 'sandbox records prune failed'));
  }, PRUNE_EVERY_MS).unref();
  return {
    get: (id) => runs.get(id),
    all: () => [...runs.values()],
    byToken(token) {
      // Keyed by the sha-256 of the token, not the token: what the probe's timing may tell is about a
      // digest, from which no token can be worked back. The match itself is still compared in constant time.
      const digest = tokenDigest(token);
      const id = liveByDigest.get(digest);
      const run = id === undefined ? undefined : runs.get(id);
      if (!run) return null;
      const same = timingSafeEqual(Buffer.from(digest, 'hex'), Buffer.from(run.token_sha256, 'hex'));
      return same && isLive(run) ? run : null;
    },
    async put(run) {
      const text = JSON.stringify(run);
      publishing.add(text);
      const ack = await opts.bus
        .publish(Subjects.sandboxRun(run.sandbox_id), encoder.encode(text))
        .finally(() => publishing.delete(text));
      keep(run, ack.seq, now().getTime());
      changed(run, 'put');
    },
    storedAt: (id) => stored.get(id)?.at,
    prune,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: () => {
      clearInterval(pruner);
      return sub.stop();
    },
  };
}

/** The run as the feed and `/sandbox-runs` show it: no token digest, directory or process. */
export const publicRun = (run: SandboxRunRecord): Payloads.SandboxRun => Payloads.SandboxRun.parse(run);
/** The run as `/sandbox-runs` lists it: the public part and what its telemetry receiver accepted. */
export const listedRun = (
  run: SandboxRunRecord,
): Payloads.SandboxRun & { telemetry: SandboxRunRecord['telemetry'] } => ({
  ...publicRun(run),
  telemetry: { ...run.telemetry },
});
export const isLive = (run: SandboxRunRecord): boolean => !Payloads.terminalSandboxStatuses.has(run.status);
