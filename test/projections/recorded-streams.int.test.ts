/**
 * Old records stay readable, and replay gives the same state (ARCHITECTURE.md "Recorded streams"): each
 * directory under test/fixtures/streams/ holds the streams of a real run, recorded by
 * scripts/record-streams.ts, and what the code of its day rebuilt from them. Loaded into a fresh memory
 * engine, today's projections and actor rebuilds must give the same answers, for every directory kept.
 *
 * When a read model's shape changes on purpose, `RECORDED_STREAMS_UPDATE=1` rewrites the newest
 * directory's `expected.json` (only that one: older recordings keep proving that old records still read).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { writeExpected } from '../../scripts/record-streams.js';
import { loadRecording, rebuild, recordings, recordingsRoot } from '../fixtures/streams/recorded.js';

const dirs = recordings();
const update = process.env['RECORDED_STREAMS_UPDATE'] === '1';

t.ok(dirs.length > 0, 'at least one recording is kept');

for (const name of dirs) {
  const dir = join(recordingsRoot, name);
  t.test(`recording ${name}: today's projections and actors rebuild what was recorded`, async (t) => {
    if (update && name === dirs[dirs.length - 1]) {
      await writeExpected(dir);
      t.comment(`rewrote ${join(dir, 'expected.json')}`);
    }
    const expected: unknown = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
    const loaded = await loadRecording(dir);
    t.teardown(() => loaded.bus.close());
    const rebuilt = await rebuild(loaded);
    // One comparison per read model, so a failure names the fold that changed meaning.
    for (const part of ['projections', 'actors'] as const) {
      const want = (expected as Record<string, Record<string, unknown>>)[part] ?? {};
      const got = (rebuilt as Record<string, Record<string, unknown>>)[part] ?? {};
      t.same(Object.keys(got).sort(), Object.keys(want).sort(), `${part}: the same read models`);
      for (const key of Object.keys(want).sort()) t.same(got[key], want[key], `${part}.${key}`);
    }
  });
}
