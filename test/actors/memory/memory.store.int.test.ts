import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  createLearningGate,
  createMemoryStore,
  memoryTools,
  type MemoryRow,
  type MemoryStore,
} from '../../../actors/index.js';
import { ensureCatalogue, openBus, openMemoryBus, type Bus } from '../../../bus/index.js';
import { Company, type EventRecord } from '../../../schema/index.js';
import { startNatsServer } from '../../harness/nats-server.js';

const agent = '6f1c2b1e-8d3a-5c1e-9a4b-2f0e1d3c4b5a';
const other = '0a9b8c7d-6e5f-5a4b-8c3d-2e1f0a9b8c7d';
const now = new Date('2026-05-01T12:00:00.000Z');
const at = (minutes: number): string => new Date(now.getTime() + minutes * 60_000).toISOString();

const row = (id: string, over: Partial<MemoryRow> = {}): MemoryRow => ({
  id,
  kind: 'long',
  content: `note ${id}`,
  metadata: {},
  ttl_until: null,
  created_at: at(0),
  ...over,
});

async function storeOn(t: Test, opts: { maxRows?: number } = {}): Promise<{ bus: Bus; store: MemoryStore }> {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const catalogue = await ensureCatalogue(bus);
  return { bus, store: createMemoryStore({ kv: catalogue.memory, now: () => now, ...opts }) };
}

const all = { query: null, kind: null, limit: 50, include_expired: true, now } as const;
const ids = (rows: readonly MemoryRow[]): string[] => rows.map((r) => r.id);

t.test('without a query recall lists the newest rows first, bounded by limit, per agent', async (t) => {
  const { store } = await storeOn(t);
  await store.remember(agent, row('a', { created_at: at(-30) }));
  await store.remember(agent, row('b', { created_at: at(-10) }));
  await store.remember(agent, row('c', { created_at: at(-20) }));
  await store.remember(other, row('z'));
  t.same(ids(await store.recall(agent, all)), ['b', 'c', 'a']);
  t.same(ids(await store.recall(agent, { ...all, limit: 2 })), ['b', 'c']);
  t.same(ids(await store.recall(other, all)), ['z'], "another agent's rows are its own");
});

t.test('a query ranks whole-word matches over prefixes and leaves out rows that match nothing', async (t) => {
  const { store } = await storeOn(t);
  await store.remember(agent, row('release', { content: 'The release train leaves on Fridays' }));
  await store.remember(agent, row('prefix', { content: 'Releases need a changelog' }));
  await store.remember(agent, row('both', { content: 'Friday release checklist', created_at: at(-60) }));
  await store.remember(agent, row('meta', { content: 'Ask Ada', metadata: { topic: 'release' } }));
  await store.remember(agent, row('none', { content: 'Lunch is at noon' }));
  const found = await store.recall(agent, { ...all, query: 'release fridays' });
  t.same(
    ids(found),
    ['release', 'meta', 'both', 'prefix'],
    'two whole words, then one (newest first on a tie), then a prefix',
  );
  t.notOk(ids(found).includes('none'));
  t.same(ids(await store.recall(agent, { ...all, query: 'TOPIC' })), ['meta'], 'metadata keys match too');
});

t.test('kind filters long and short rows', async (t) => {
  const { store } = await storeOn(t);
  await store.remember(agent, row('long'));
  await store.remember(agent, row('short', { kind: 'short', ttl_until: at(60) }));
  t.same(ids(await store.recall(agent, { ...all, kind: 'short' })), ['short']);
  t.same(ids(await store.recall(agent, { ...all, kind: 'long' })), ['long']);
});

t.test('an expired short row stays stored but is recalled only with include_expired', async (t) => {
  const { store } = await storeOn(t);
  await store.remember(agent, row('live', { kind: 'short', ttl_until: at(5) }));
  await store.remember(agent, row('gone', { kind: 'short', ttl_until: at(-5) }));
  t.same(ids(await store.recall(agent, { ...all, include_expired: false })), ['live']);
  t.same(ids(await store.recall(agent, all)).sort(), ['gone', 'live']);
  const later = new Date(now.getTime() + 10 * 60_000);
  t.same(ids(await store.recall(agent, { ...all, include_expired: false, now: later })), [], 'all past ttl');
  t.equal((await store.rows(agent)).length, 2, 'nothing was deleted');
});

t.test(
  'past the cap the oldest expired short row goes first, then short rows, then the oldest long',
  async (t) => {
    const { store } = await storeOn(t, { maxRows: 3 });
    await store.remember(agent, row('long-old', { created_at: at(-50) }));
    await store.remember(agent, row('short-live', { kind: 'short', ttl_until: at(60), created_at: at(-40) }));
    await store.remember(
      agent,
      row('short-expired', { kind: 'short', ttl_until: at(-1), created_at: at(-30) }),
    );
    await store.remember(agent, row('new-1', { created_at: at(-3) }));
    t.same(
      ids(await store.recall(agent, all)).sort(),
      ['long-old', 'new-1', 'short-live'],
      'expired went first',
    );
    await store.remember(agent, row('new-2', { created_at: at(-2) }));
    t.same(ids(await store.recall(agent, all)).sort(), ['long-old', 'new-1', 'new-2'], 'then the short row');
    await store.remember(agent, row('new-3', { created_at: at(-1) }));
    t.same(
      ids(await store.recall(agent, all)).sort(),
      ['new-1', 'new-2', 'new-3'],
      'then the oldest long row',
    );
    await store.remember(other, row('elsewhere'));
    t.equal((await store.rows(agent)).length, 3, "another agent's writes never evict this one's");
  },
);

t.test('past the cap a lesson reflection wrote goes before a note the seat kept, however new', async (t) => {
  const { store } = await storeOn(t, { maxRows: 2 });
  await store.remember(agent, row('note-old', { created_at: at(-50) }));
  await store.remember(agent, row('lesson', { metadata: { source: 'reflection' }, created_at: at(-10) }));
  await store.remember(agent, row('note-new', { created_at: at(-1) }));
  t.same(ids(await store.recall(agent, all)).sort(), ['note-new', 'note-old']);
  await store.remember(agent, row('lesson-2', { metadata: { source: 'reflection' }, created_at: at(0) }));
  t.same(
    ids(await store.recall(agent, all)).sort(),
    ['lesson-2', 'note-new'],
    'a new lesson still evicts the oldest note',
  );
});

t.test('rows outlive a restart of the memory engine on its store dir', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-memory-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = await openMemoryBus({ storeDir: dir });
  await createMemoryStore({ kv: (await ensureCatalogue(first)).memory }).remember(agent, row('kept'));
  await first.close();
  const second = await openMemoryBus({ storeDir: dir });
  t.teardown(() => second.close());
  const store = createMemoryStore({ kv: (await ensureCatalogue(second)).memory });
  t.same(ids(await store.recall(agent, all)), ['kept']);
});

t.test('the same store works on JetStream', async (t) => {
  const server = await startNatsServer({ t });
  const bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  const store = createMemoryStore({ kv: (await ensureCatalogue(bus)).memory, now: () => now, maxRows: 2 });
  await store.remember(agent, row('a', { content: 'deploy on tuesday', created_at: at(-3) }));
  await store.remember(agent, row('b', { kind: 'short', ttl_until: at(-1), created_at: at(-2) }));
  await store.remember(agent, row('c', { content: 'tuesday standup', created_at: at(-1) }));
  t.same(ids(await store.recall(agent, all)), ['c', 'a'], 'the expired short row was evicted at the cap');
  t.same(ids(await store.recall(agent, { ...all, query: 'deploy' })), ['a']);
});

t.test('memory_remember refuses with a readable error and writes nothing when learning is off', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['the org turned learning off', { learning: { enabled: false }, roles: [{ name: 'Ada' }] }],
    ['the seat turned learning off', { roles: [{ name: 'Ada', learning_enabled: false }] }],
  ];
  for (const [name, doc] of cases) {
    const { store } = await storeOn(t);
    const published: EventRecord[] = [];
    const learning = createLearningGate();
    learning.apply(Company.parse({ name: 'Acme', ...doc }));
    const [remember] = memoryTools({
      memory: store,
      events: { publish: (e) => Promise.resolve(void published.push(e)) },
      learning,
    });
    const result = await remember!.call({ seat: 'ada', agent_id: agent }, { content: 'keep this' });
    t.equal(result.is_error, true, name);
    t.match(result.content[0]?.text, /Learning is off for your seat/, name);
    t.same(await store.rows(agent), [], `${name}: no row`);
    t.same(published, [], `${name}: no event`);
  }
});

t.test('learning is on unless turned off, and the org flag changes only at restart', async (t) => {
  const warnings: string[] = [];
  const gate = createLearningGate((m) => warnings.push(m));
  // As an apply feeds it: the document, then the apply's end.
  const applied = (doc: Company): void => {
    gate.apply(doc);
    gate.settled();
  };
  t.equal(gate.enabled('ada'), false, 'nothing applied yet: no learning');
  applied(
    Company.parse({ name: 'Acme', roles: [{ name: 'Ada' }, { name: 'Bob', learning_enabled: false }] }),
  );
  t.equal(gate.enabled('ada'), true);
  t.equal(gate.enabled('bob'), false);
  t.same(warnings, [], 'the first document is what runs');
  gate.apply(Company.parse({ name: 'Acme', learning: { enabled: false }, roles: [{ name: 'Ada' }] }));
  t.same(warnings, [], 'nothing is said before the apply ended');
  gate.settled();
  t.equal(gate.enabled('ada'), true, 'the first applied org flag holds until restart');
  t.match(warnings, [/takes effect at the next restart/]);
  applied(
    Company.parse({
      name: 'Acme',
      units: [{ name: 'Eng', type: 'team', roles: [{ name: 'Ada', learning_enabled: false }] }],
    }),
  );
  t.equal(gate.enabled('ada'), false, 'a seat in a unit turns its own learning off at once');
  t.equal(warnings.length, 1, 'back to the running settings: nothing waits for the restart');
  applied(Company.parse({ name: 'Acme', roles: [{ name: 'Ada' }] }));
  t.equal(warnings.length, 1, 'an apply that leaves learning as it was says nothing');
  applied(
    Company.parse({ name: 'Acme', learning: { reflect: { enabled: true } }, roles: [{ name: 'Ada' }] }),
  );
  t.match(warnings[1], /the learning settings changed; they take effect at the next restart/);
  t.equal(gate.reflection('ada'), null, 'reflection waits for the restart');
});

t.test(
  'the per-turn recall cap is read from the first document applied and kept until restart',
  async (t) => {
    const warnings: string[] = [];
    const gate = createLearningGate((m) => warnings.push(m));
    t.equal(gate.recallsPerTurn(), null, 'nothing applied yet: no cap');
    const capped = (cap: number) =>
      Company.parse({
        name: 'Acme',
        learning: { personal_memory: { max_refreshes_per_turn: cap } },
        roles: [{ name: 'Ada', learning_enabled: false }],
      });
    gate.apply(capped(2));
    gate.settled();
    t.equal(gate.recallsPerTurn(), 2, 'applied at start, whether or not the seat learns');
    gate.apply(capped(5));
    gate.settled();
    t.equal(gate.recallsPerTurn(), 2, 'a change waits for the restart');
    t.match(warnings, [/the learning settings changed; they take effect at the next restart/]);
    const restarted = createLearningGate();
    restarted.apply(Company.parse({ name: 'Acme', roles: [{ name: 'Ada' }] }));
    t.equal(restarted.recallsPerTurn(), null, 'a document without it: no cap');
  },
);
