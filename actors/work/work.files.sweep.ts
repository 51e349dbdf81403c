/**
 * The file sweep (ops/work-tracker.md "Files"): project files' bytes that no listed file's current version
 * references are removed from the file store. Only a version is ever served, so replaced and deleted
 * versions' bytes, and those of a PUT that lost its race in the log, are garbage once nothing can still be
 * reading or about to list them. Every node running the tracker sweeps each half hour, as each looks for an
 * automatic trim: a delete names the chunk's revision, so nodes sweeping at once remove each chunk once and
 * never a chunk written again since they read it.
 *
 * A chunk is removed only when all of these hold:
 * 1. the state it is judged by has applied the work log up to its head as read at the sweep's start, so a
 *    lagging node does not take a newer version's bytes for garbage;
 * 2. its content has been unreferenced at least the grace, so a read still streaming a version replaced
 *    since has the grace to finish: either this node's sweep found it so the grace ago, or no file changed
 *    (no version put, no file removed) in the grace, so nothing became unreferenced in it (the bound that
 *    outlives a restart, which forgets what the sweeps found);
 * 3. its record is older than the grace: a PUT stores every chunk again before it appends its version
 *    (content reused included), so bytes about to be listed are never taken.
 */
import type { Logger } from 'pino';
import { KvConflictError, Streams, type Bus, type Kv } from '../../bus/index.js';
import { chunkContent } from '../../schema/index.js';
import { startPeriodic } from '../periodic.js';
import type { WorkStateView } from './work.types.js';

/** How often a node sweeps the file store: twice in a grace, so unreferenced bytes go one to two graces later. */
const FILE_SWEEP_EVERY_MS = 1_800_000;
/** How long bytes stay after they were last written and after a sweep first found them unreferenced. */
const FILE_SWEEP_GRACE_MS = 3_600_000;
/** How long a sweep waits for this node's state to reach the log's head before it gives up this time. */
const CATCH_UP_MS = 10_000;

export interface FileSweepOptions {
  readonly bus: Bus;
  readonly view: WorkStateView;
  /** The file store's bucket. */
  readonly kv: Kv;
  readonly logger: Logger;
  readonly everyMs?: number;
  readonly graceMs?: number;
  readonly catchUpMs?: number;
  readonly now?: () => Date;
}

/** What one sweep did; null when it decided nothing (the state not caught up or not trusted). */
export interface FileSweepResult {
  readonly removed: { readonly chunks: number; readonly bytes: number; readonly contents: number };
  /** Unreferenced chunks left for now: within the grace, or written again while being judged. */
  readonly waiting: number;
}

export interface FileSweep {
  /** One sweep now (what the timer runs); resolves when it is done. */
  sweep(): Promise<FileSweepResult | null>;
  /** No more sweeps; resolves once a sweep under way is done. */
  stop(): Promise<void>;
}

export function startFileSweep(opts: FileSweepOptions): FileSweep {
  const now = opts.now ?? (() => new Date());
  const graceMs = opts.graceMs ?? FILE_SWEEP_GRACE_MS;
  // Content hash -> when a sweep of this node first found it unreferenced (forgotten once referenced).
  let unreferencedSince = new Map<string, number>();

  const skipped = (reason: string): null => {
    opts.logger.warn({ event: 'work_files_sweep_skipped', reason }, 'file sweep skipped');
    return null;
  };

  const once = async (): Promise<FileSweepResult | null> => {
    // 1. the state caught up to the log's head as it is now
    const head = (await opts.bus.streamInfo(Streams.Work)).lastSeq;
    if (!(await opts.view.until(head, opts.catchUpMs ?? CATCH_UP_MS)))
      return skipped(`this node's work state did not reach the log's head (${head})`);
    const untrusted = opts.view.unavailable?.() ?? null;
    if (untrusted !== null) return skipped(untrusted);
    const referenced = new Set<string>();
    let newestChange = 0;
    for (const file of opts.view.state().files.values()) {
      if (!file.removed) referenced.add(file.sha256);
      newestChange = Math.max(newestChange, Date.parse(file.updated_at) || 0);
    }

    // 2. each unreferenced chunk judged by when it was found so and when it was written
    const at = now().getTime();
    const since = new Map<string, number>();
    const removed = { chunks: 0, bytes: 0, contents: new Set<string>() };
    let waiting = 0;
    for (const key of await opts.kv.keys()) {
      const content = chunkContent(key);
      if (content === null || referenced.has(content)) continue;
      const found = unreferencedSince.get(content) ?? since.get(content) ?? at;
      since.set(content, found);
      if (at - found < graceMs && at - newestChange < graceMs) {
        waiting++;
        continue;
      }
      const entry = await opts.kv.get(key);
      if (entry === null) continue; // removed since it was listed
      if (at - entry.created.getTime() < graceMs) {
        waiting++;
        continue;
      }
      // 3. removed unless written again since it was read (or another node removed it first)
      try {
        await opts.kv.delete(key, { expectedRevision: entry.revision });
      } catch (err) {
        if (!(err instanceof KvConflictError)) throw err;
        waiting++;
        continue;
      }
      removed.chunks++;
      removed.bytes += entry.value.length;
      removed.contents.add(content);
    }
    unreferencedSince = since;
    const result = { removed: { ...removed, contents: removed.contents.size }, waiting };
    if (removed.chunks > 0)
      opts.logger.info({ event: 'work_files_swept', ...result }, 'unreferenced file bytes removed');
    return result;
  };

  const job = startPeriodic(
    () =>
      once().catch((err: unknown) => {
        opts.logger.warn({ err, event: 'work_files_sweep_failed' }, 'file sweep failed');
        return null;
      }),
    { everyMs: opts.everyMs ?? FILE_SWEEP_EVERY_MS },
  );
  return { sweep: job.run, stop: job.stop };
}
