/**
 * The initial values of a KV watch: every matching key's judged state as of a stream sequence, read in
 * bulk instead of one request (or one per record) for each key. A key whose newest record is
 * unconditional is settled by that record alone (kv-rule.ts), so one ordered read of each key's newest
 * record settles most keys. The others — the newest record a claim, or written after the sequence — need
 * their history: a few are read key by key in parallel, many through one ordered read of the bucket's
 * records through the sequence.
 */
import type { KeyStates } from './kv-records.js';
import { storedKeys, toRecord, type BucketLayout } from './kv-records.js';
import { judge, settledBy, type KeyState, type KvRecord } from './kv-rule.js';
import type { EngineHost } from './host.js';
import { boundedRead } from './reader.js';

/** Up to this many unsettled keys are read one by one, all at once; more are read in one pass. */
const perKeyLimit = 64;

/**
 * The state of every key matching `filter` (a subject) that has records through `throughSeq`. A state
 * read key by key may go past `throughSeq`: the watch skips the live records a state already counts.
 */
export async function initialStates(
  host: EngineHost,
  layout: BucketLayout,
  states: KeyStates,
  filter: string,
  throughSeq: number,
): Promise<Map<string, KeyState>> {
  const settled = new Map<string, KeyState>();
  if (throughSeq === 0) return settled;
  const newest = async () => {
    const read = boundedRead(host, layout.stream, { filter, lastPerSubject: true, toSeq: throughSeq });
    for await (const msg of read) {
      const record = toRecord(layout.prefix, msg);
      if (record.parent === null) settled.set(record.key, settledBy(record));
    }
  };
  // The key list is taken after `throughSeq`, so it names every key with a record through it; the
  // newest-record read stops at the first record past `throughSeq`, and keys after it are judged below.
  const [keys] = await Promise.all([storedKeys(host, layout, filter), newest()]);
  const rest = keys.filter((key) => !settled.has(key));
  if (rest.length <= perKeyLimit) {
    const judged = await Promise.all(rest.map((key) => states.current(key)));
    rest.forEach((key, i) => settled.set(key, judged[i] as KeyState));
    return settled;
  }
  const histories = new Map<string, KvRecord[]>(rest.map((key) => [key, []]));
  for await (const msg of boundedRead(host, layout.stream, { filter, fromSeq: 1, toSeq: throughSeq })) {
    const record = toRecord(layout.prefix, msg);
    histories.get(record.key)?.push(record);
  }
  for (const [key, records] of histories) settled.set(key, judge(records, layout.ttlMs).state);
  return settled;
}
