/**
 * Work snapshots on the bus (ops/work-tracker.md "Retention"): the work state at one sequence, as JSON cut
 * into chunks a bus message holds, in the `svc_work_snapshots` bucket, with a manifest naming its size,
 * SHA-256 and chunks. Any node reads what any node wrote: a node whose log was trimmed starts from the
 * newest snapshot that reaches the log's first record and whose bytes match their manifest.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { Buckets, type Bus, type Kv } from '../../bus/index.js';
import {
  SnapshotManifest,
  snapshotOf,
  stateOfSnapshot,
  WORK_SNAPSHOT_VERSION,
  WorkSnapshot,
  type WorkState,
} from '../../schema/index.js';

const CHUNK_BYTES = 256 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const manifestKey = (seq: number): string => `s${seq}.manifest`;
const chunkKey = (seq: number, i: number): string => `s${seq}.${i}`;

export interface WorkSnapshots {
  /** Writes the state as it stands (one sequence: the encoding is synchronous); resolves with its manifest. */
  write(state: WorkState, by: string, now: Date): Promise<SnapshotManifest>;
  /**
   * The newest snapshot at or after `minSeq` whose bytes match its manifest, as a state, or null. A
   * snapshot that does not read is logged and passed over for an older one.
   */
  read(minSeq: number): Promise<{ state: WorkState; manifest: SnapshotManifest } | null>;
  /** Removes every snapshot below `seq` (no node can start from one once the log is trimmed past it). */
  prune(seq: number): Promise<number>;
}

export function openWorkSnapshots(bus: Bus): Promise<Kv> {
  // Each key is written once, then deleted: one record of history.
  return bus.kv({ name: Buckets.WorkSnapshots, history: 1 });
}

export function workSnapshots(kv: Kv, logger?: Logger): WorkSnapshots {
  const manifests = async (): Promise<SnapshotManifest[]> => {
    const out: SnapshotManifest[] = [];
    for (const key of await kv.keys('*.manifest')) {
      const entry = await kv.get(key);
      if (!entry) continue;
      try {
        const parsed = SnapshotManifest.safeParse(JSON.parse(decoder.decode(entry.value)));
        if (parsed.success) out.push(parsed.data);
        else logger?.warn({ key }, 'work snapshot manifest does not fit: passed over');
      } catch {
        logger?.warn({ key }, 'work snapshot manifest is not JSON: passed over');
      }
    }
    return out.sort((a, b) => b.seq - a.seq);
  };

  const load = async (m: SnapshotManifest): Promise<WorkState> => {
    const bytes = new Uint8Array(m.size);
    let at = 0;
    for (let i = 0; i < m.chunks; i++) {
      const entry = await kv.get(chunkKey(m.seq, i));
      if (!entry) throw new Error(`chunk ${i} is missing`);
      if (at + entry.value.length > m.size) throw new Error(`chunk ${i} runs past ${m.size} bytes`);
      bytes.set(entry.value, at);
      at += entry.value.length;
    }
    if (at !== m.size) throw new Error(`the chunks hold ${at} bytes, not ${m.size}`);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== m.sha256) throw new Error(`checksum ${sha256} is not the manifest's ${m.sha256}`);
    const parsed = WorkSnapshot.safeParse(JSON.parse(decoder.decode(bytes)));
    if (!parsed.success) throw new Error(`the snapshot does not fit version ${WORK_SNAPSHOT_VERSION}`);
    if (parsed.data.seq !== m.seq) throw new Error(`the snapshot is of ${parsed.data.seq}, not ${m.seq}`);
    return stateOfSnapshot(parsed.data);
  };

  return {
    async write(state, by, now) {
      const snapshot = snapshotOf(state);
      const bytes = encoder.encode(JSON.stringify(snapshot));
      const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
      for (let i = 0; i < chunks; i++)
        await kv.put(chunkKey(snapshot.seq, i), bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
      const manifest: SnapshotManifest = {
        version: WORK_SNAPSHOT_VERSION,
        generation: snapshot.retention.generation,
        seq: snapshot.seq,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        chunks,
        at: now.toISOString(),
        by,
      };
      // The manifest last: a reader never finds one whose chunks are not all written.
      await kv.put(manifestKey(snapshot.seq), encoder.encode(JSON.stringify(manifest)));
      return manifest;
    },
    async read(minSeq) {
      for (const m of await manifests()) {
        if (m.seq < minSeq) break;
        if (m.version !== WORK_SNAPSHOT_VERSION) {
          logger?.warn({ seq: m.seq, version: m.version }, 'work snapshot of another version: passed over');
          continue;
        }
        try {
          return { state: await load(m), manifest: m };
        } catch (err) {
          logger?.error({ err, seq: m.seq }, 'work snapshot unreadable: passed over');
        }
      }
      return null;
    },
    async prune(seq) {
      let removed = 0;
      for (const m of await manifests()) {
        if (m.seq >= seq) continue;
        await kv.delete(manifestKey(m.seq));
        for (let i = 0; i < m.chunks; i++) await kv.delete(chunkKey(m.seq, i));
        removed += 1;
      }
      return removed;
    },
  };
}
