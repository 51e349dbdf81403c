/**
 * KV watch under log-order arbitration: an ordered consumer over the bucket's records, each judged by
 * the same rule as `get` before it is reported, so a watcher never sees a loser. Records are judged one
 * at a time, in stream order; a key first met through a conditional record is judged from its history.
 * The read is supervised (reader.ts): when the server behind it is lost it resumes where it stopped.
 */
import type { KvEntry, Subscription } from '../bus.js';
import { assertSubject } from '../subject-match.js';
import { once, type EngineHost } from './host.js';
import { initialStates } from './kv-initial.js';
import { toEntry, toRecord, type BucketLayout, type KeyStates } from './kv-records.js';
import { apply, emptyState, live, type KeyState, type KvRecord } from './kv-rule.js';
import { followOrdered } from './reader.js';
import { translate } from './translate.js';

export async function watchBucket(
  host: EngineHost,
  layout: BucketLayout,
  states: KeyStates,
  onEntry: (entry: KvEntry) => void,
  opts: { key?: string; initial?: boolean },
): Promise<Subscription> {
  const filter = opts.key ?? '>';
  assertSubject(filter, true);
  const subjectFilter = `${layout.prefix}${filter}`;
  const known = new Map<string, KeyState>();
  const queue: KvRecord[] = [];
  let ready = false;
  let stopped = false;
  let pumping: Promise<void> | null = null;
  let lastSeq = 0;

  const emit = (record: KvRecord) => {
    try {
      onEntry(toEntry(layout.bucket, record));
    } catch (error) {
      host.logger.error({ err: error, bucket: layout.bucket, key: record.key }, 'bus: kv watcher failed');
    }
  };

  const judgeOne = async (record: KvRecord) => {
    const state = known.get(record.key);
    if (state && record.seq <= state.last) return;
    if (state || record.parent === null) {
      const step = apply(state ?? emptyState, record, layout.ttlMs);
      known.set(record.key, step.state);
      if (step.valid) emit(record);
      return;
    }
    // A key first met through a conditional record: this watch saw every record after `lastSeq`, so
    // its history is the records through `lastSeq` (which the stream leader surely holds) plus this one.
    const before = await states.advance(record.key, null, lastSeq);
    const step = apply(before.state, record, layout.ttlMs);
    known.set(record.key, step.state);
    if (step.valid) emit(record);
  };

  const pump = () => {
    if (pumping || !ready) return;
    pumping = (async () => {
      while (queue.length > 0 && !stopped) {
        const record = queue.shift() as KvRecord;
        try {
          await judgeOne(record);
        } catch (error) {
          host.logger.error(
            { err: error, bucket: layout.bucket, key: record.key },
            'bus: kv watch could not judge',
          );
        }
      }
    })().finally(() => {
      pumping = null;
      if (queue.length > 0 && !stopped) pump();
    });
  };

  // 1. follow everything after the current end, buffering until the initial values are out
  await host.ready();
  try {
    lastSeq = (await host.jsm.streams.info(layout.stream)).state.last_seq;
  } catch (error) {
    throw translate(error, `kv ${layout.bucket}`);
  }
  // Supervised: a watch whose server is lost resumes after the last record it saw (reader.ts).
  const read = await followOrdered(
    host,
    layout.stream,
    { filter: subjectFilter, fromSeq: lastSeq + 1 },
    (msg) => {
      queue.push(toRecord(layout.prefix, msg));
      pump();
    },
  ).catch((error: unknown) => {
    throw translate(error, `kv ${layout.bucket} watch`);
  });
  const stop = once(async () => {
    stopped = true;
    await read.stop();
    await pumping;
  });

  // 2. the current value of every matching key, oldest revision first (read in bulk: kv-initial.ts)
  try {
    if (opts.initial !== false) {
      const settled = await initialStates(host, layout, states, subjectFilter, lastSeq);
      const now = Date.now();
      const currents: KvRecord[] = [];
      for (const [key, state] of settled) {
        known.set(key, state);
        const current = live(state, layout.ttlMs, now);
        if (current) currents.push(current);
      }
      currents.sort((a, b) => a.seq - b.seq).forEach(emit);
    }
  } catch (error) {
    await stop();
    throw translate(error, `kv ${layout.bucket}`);
  }
  // Live changes start once the caller has seen the watch resolve: what it was given before that is
  // the initial values alone, each key once (a change racing the read comes after, not among them).
  setImmediate(() => {
    ready = true;
    pump();
  });
  return host.track({ stop });
}
