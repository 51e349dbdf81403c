/**
 * The skills sync on a real bus (memory engine): each configured source's set is kept under its own key
 * of `svc_tool_skills`; the native set is written only when it changed; a source that fails keeps its
 * last set and is logged once per reason; a source no longer configured loses its set (not while the
 * configuration is unknown); a vendor a peer
 * read within the interval is not read again by the periodic sync, but is by a forced one.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { readSkillSet, startSkillsSync, type SkillPage, type SkillReader } from '../../../actors/index.js';
import { Buckets, openMemoryBus } from '../../../bus/index.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

const page = (id: string, title: string, body = `How to ${title}.`): SkillPage => ({
  id,
  title,
  body,
  url: null,
  updated_at: '2026-12-01T00:00:00.000Z',
});

async function setup(t: Test) {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: Buckets.ToolSkills, history: 2 });
  let clock = Date.parse('2026-12-02T12:00:00Z');
  const log = capture();
  let readers: SkillReader[] | null = [];
  const sync = startSkillsSync({
    kv,
    logger: log.logger,
    readers: () => readers,
    vendorEveryMs: 600_000,
    now: () => new Date(clock),
  });
  t.teardown(() => sync.stop());
  return {
    kv,
    sync,
    log,
    set: (next: SkillReader[] | null) => void (readers = next),
    advance: (ms: number) => void (clock += ms),
  };
}

t.test('each source is kept under its own key; an unchanged native set is not written again', async (t) => {
  const { kv, sync, set } = await setup(t);
  let nativePages = [page('n1', 'Deploy')];
  set([
    { source: 'native', key: 'TS', read: () => Promise.resolve(nativePages) },
    { source: 'wiki', key: 'TS', read: () => Promise.resolve([page('w1', 'Query logs')]) },
  ]);
  await sync.syncNow();
  t.same(
    (await readSkillSet(kv, 'native'))?.skills.map((s) => s.name),
    ['Deploy'],
  );
  t.same(
    (await readSkillSet(kv, 'wiki'))?.skills.map((s) => s.name),
    ['Query logs'],
  );
  t.equal(await readSkillSet(kv, 'tracker-b'), null);
  const before = (await kv.get('native'))?.revision;
  await sync.syncNow();
  t.equal((await kv.get('native'))?.revision, before, 'same skills: no write');
  nativePages = [page('n1', 'Deploy'), page('n2', 'Rollback')];
  await sync.syncNow();
  t.same(
    (await readSkillSet(kv, 'native'))?.skills.map((s) => s.name),
    ['Deploy', 'Rollback'],
  );
});

t.test('a failing source keeps its last set and is logged once per reason', async (t) => {
  const { kv, sync, set, log } = await setup(t);
  set([{ source: 'wiki', key: 'TS', read: () => Promise.resolve([page('w1', 'Query logs')]) }]);
  await sync.syncNow();
  set([{ source: 'wiki', key: 'TS', read: () => Promise.reject(new Error('wiki GET /rest/api/content: wiki answered 401: the credential was refused')) }]); // prettier-ignore
  await sync.syncNow();
  await sync.syncNow();
  t.same(
    (await readSkillSet(kv, 'wiki'))?.skills.map((s) => s.name),
    ['Query logs'],
    'the last set stands',
  );
  const failures = log.lines.filter((l) => l['event'] === 'skills_sync_failed');
  t.equal(failures.length, 1, 'one line for two failures of one reason');
  t.match(failures[0], { source: 'wiki', key: 'TS', reason: /credential was refused/ });
});

t.test('while the configuration is unknown nothing is read or removed', async (t) => {
  const { kv, sync, set } = await setup(t);
  set([{ source: 'wiki', key: 'TS', read: () => Promise.resolve([page('w1', 'Query logs')]) }]);
  await sync.syncNow();
  set(null);
  await sync.syncNow();
  t.not(await readSkillSet(kv, 'wiki'), null);
});

t.test('a source no longer configured loses its set', async (t) => {
  const { kv, sync, set } = await setup(t);
  set([
    { source: 'wiki', key: 'TS', read: () => Promise.resolve([page('w1', 'Query logs')]) },
    { source: 'native', key: 'TS', read: () => Promise.resolve([page('n1', 'Deploy')]) },
  ]);
  await sync.syncNow();
  set([{ source: 'native', key: 'TS', read: () => Promise.resolve([page('n1', 'Deploy')]) }]);
  await sync.syncNow();
  t.equal(await readSkillSet(kv, 'wiki'), null);
  t.not(await readSkillSet(kv, 'native'), null);
});

t.test(
  'the periodic sync leaves a vendor a peer read within the interval; a forced one reads it',
  async (t) => {
    const { sync, set, advance } = await setup(t);
    let reads = 0;
    set([{ source: 'wiki', key: 'TS', read: () => Promise.resolve((reads++, [page('w1', 'Query logs')])) }]);
    await sync.syncNow();
    t.equal(reads, 1);
    advance(60_000);
    await sync.syncDue();
    t.equal(reads, 1, 'read a minute ago: left');
    advance(600_000);
    await sync.syncDue();
    t.equal(reads, 2, 'past the interval: read');
    await sync.syncNow();
    t.equal(reads, 3, 'forced: read');
  },
);
