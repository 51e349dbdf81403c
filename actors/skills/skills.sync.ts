/**
 * The skills sync: reads each tool-skills source this node can read and keeps its set in the
 * `svc_tool_skills` bucket under the source's name. The native knowledge base is read from this node's
 * projection soon after it changes (`nudgeNative`) and every `nativeEveryMs` (cheap: written only when the
 * set changed); the vendors are asked
 * every `vendorEveryMs` unless a peer synced them since, and soon after `nudge()` (a webhook about a page
 * of the space). A source that fails keeps its last set; one no longer configured has its set removed.
 */
import type { Logger } from 'pino';
import type { Kv } from '../../bus/index.js';
import { readKvJson } from '../kv-json.js';
import { SkillSet, type SkillSource } from '../../schema/index.js';
import { sameSkills, skillSet, type SkillPage } from './skills.text.js';

/** One source as the active document and the environment configure it now. */
export interface SkillReader {
  readonly source: SkillSource;
  /** The space or project key. */
  readonly key: string;
  read(): Promise<SkillPage[]>;
}

export interface SkillsSyncOptions {
  readonly kv: Kv;
  readonly logger: Logger;
  /** The sources configured now (re-read on every sync); null while that is unknown (no document yet). */
  readers(): readonly SkillReader[] | null;
  readonly nativeEveryMs?: number;
  readonly vendorEveryMs?: number;
  /** How long after a nudge the vendors are read (nudges in between share the read). */
  readonly nudgeDelayMs?: number;
  /** How long after a change of the native knowledge base its container is read. Default 200 ms. */
  readonly nativeNudgeDelayMs?: number;
  readonly now?: () => Date;
}

export interface SkillsSync {
  /** A page of a vendor space may have changed: read the vendors soon. */
  nudge(): void;
  /** The native knowledge base changed: read its container soon (changes in between share the read). */
  nudgeNative(): void;
  /** Syncs every source now (vendors included) and resolves once done; a failure is logged, not thrown. */
  syncNow(): Promise<void>;
  /** What the vendor timer runs: as syncNow, but a vendor a peer read within the interval is left. */
  syncDue(): Promise<void>;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const allSources: readonly SkillSource[] = ['native', 'wiki', 'tracker-b'];

export async function readSkillSet(kv: Kv, source: SkillSource): Promise<SkillSet | null> {
  return (await readKvJson<SkillSet | null>(kv, source, SkillSet, null)).value;
}

/** Runs `run` once, `delayMs` after the first trigger; triggers in between share that run. */
function coalesced(delayMs: number, run: () => void): { trigger(): void; cancel(): void } {
  let timer: NodeJS.Timeout | null = null;
  return {
    trigger() {
      if (timer !== null) return;
      timer = setTimeout(() => {
        timer = null;
        run();
      }, delayMs);
    },
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

export function startSkillsSync(opts: SkillsSyncOptions): SkillsSync {
  const { kv, logger } = opts;
  const now = opts.now ?? (() => new Date());
  const nativeEveryMs = opts.nativeEveryMs ?? 60_000;
  const vendorEveryMs = opts.vendorEveryMs ?? 10 * 60_000;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const lastFailure = new Map<SkillSource, string>();

  const syncOne = async (reader: SkillReader, force: boolean): Promise<void> => {
    const current = await readSkillSet(kv, reader.source);
    const vendor = reader.source !== 'native';
    // A peer read this vendor recently: its set stands until the interval has passed.
    if (vendor && !force && current?.key === reader.key) {
      const age = now().getTime() - Date.parse(current.synced_at);
      if (age >= 0 && age < vendorEveryMs) return;
    }
    let next: SkillSet;
    try {
      next = skillSet(reader.source, reader.key, await reader.read(), now());
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      // Once per distinct reason: a vendor down for an hour is one line, not one per read.
      if (lastFailure.get(reader.source) !== reason)
        logger.warn({ event: 'skills_sync_failed', source: reader.source, key: reader.key, reason }, 'skills_sync_failed'); // prettier-ignore
      lastFailure.set(reader.source, reason);
      return;
    }
    lastFailure.delete(reader.source);
    // Vendors' sets carry when they were read (peers skip by it); the native one is written on change only.
    if (sameSkills(current, next) && !vendor) return;
    await kv.put(reader.source, encoder.encode(JSON.stringify(next)));
    if (!sameSkills(current, next))
      logger.info(
        { event: 'skills_synced', source: reader.source, key: reader.key, skills: next.skills.length, left_out: next.left_out }, // prettier-ignore
        'skills_synced',
      );
  };

  const sync = (which: 'native' | 'vendors' | 'all', force: boolean): Promise<void> => {
    running = running.then(async () => {
      if (stopped) return;
      const readers = opts.readers();
      // Unknown is not "none": no set is read or removed until the document is.
      if (readers === null) return;
      const configured = new Set(readers.map((r) => r.source));
      for (const reader of readers) {
        const isNative = reader.source === 'native';
        if (which === 'native' && !isNative) continue;
        if (which === 'vendors' && isNative) continue;
        try {
          await syncOne(reader, force);
        } catch (err) {
          logger.warn({ event: 'skills_sync_failed', source: reader.source, err }, 'skills_sync_failed');
        }
      }
      // A source switched off (the document, the environment) takes its skills with it.
      if (which === 'all')
        for (const source of allSources)
          if (!configured.has(source))
            await kv
              .delete(source)
              .catch((err: unknown) => logger.warn({ err, source }, 'skills set not removed'));
    });
    return running;
  };

  const nativeTimer = setInterval(() => void sync('native', false), nativeEveryMs);
  const vendorTimer = setInterval(() => void sync('all', false), vendorEveryMs);
  // The periodic reads never keep a process up; a nudge's read does until it ran (stop() clears it).
  nativeTimer.unref();
  vendorTimer.unref();
  const vendorNudge = coalesced(opts.nudgeDelayMs ?? 2_000, () => void sync('vendors', true));
  const nativeNudge = coalesced(opts.nativeNudgeDelayMs ?? 200, () => void sync('native', false));
  return {
    nudge() {
      if (!stopped) vendorNudge.trigger();
    },
    nudgeNative() {
      if (!stopped) nativeNudge.trigger();
    },
    syncNow: () => sync('all', true),
    syncDue: () => sync('all', false),
    async stop() {
      stopped = true;
      clearInterval(nativeTimer);
      clearInterval(vendorTimer);
      vendorNudge.cancel();
      nativeNudge.cancel();
      await running;
    },
  };
}
