/**
 * `svc projections list|rebuild [NAME]` on a stopped node's store: the list names every projection and the
 * checkpoint held for it; a rebuild replays from zero and writes a fresh checkpoint, replacing one of
 * another version; an unknown name or verb is a usage error.
 */
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ensureCatalogue, openMemoryBus, publishEvent, Streams, newEvent } from '../../bus/index.js';
import { openCheckpoints } from '../../projections/index.js';
import { EventCategory } from '../../schema/index.js';
import { main } from '../../scripts/svc.js';
import { freePort } from '../harness/child.js';

function capture() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

async function store(t: Test): Promise<{ file: string; data: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-projections-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const data = join(dir, 'data');
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `api: {host: 127.0.0.1, port: ${await freePort()}}\nstream: {store_dir: ${data}}\n`);
  const bus = await openMemoryBus({ storeDir: data });
  await ensureCatalogue(bus);
  for (let i = 0; i < 12; i += 1) {
    await publishEvent(
      bus,
      newEvent({
        type: 'agent_paused',
        category: EventCategory.Lifecycle,
        source: 's',
        summary: `${i}`,
        actor: 'system',
      }),
    );
  }
  await bus.close();
  return { file, data };
}

async function svc(...args: string[]) {
  const out = capture();
  const err = capture();
  const code = await main(['projections', ...args], { SVC_LOG_LEVEL: 'silent' }, out, err);
  const lines = out
    .text()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, lines, out: out.text(), err: err.text() };
}

t.test('rebuild replays every projection from zero and writes fresh checkpoints', async (t) => {
  const { file, data } = await store(t);
  const listed = await svc('list', '--config', file);
  t.equal(listed.code, 0, listed.err);
  t.same(
    listed.lines.map((l) => l['name']),
    [
      'config',
      'secrets',
      'events',
      'readmodels.agents',
      'readmodels.memory',
      'readmodels.sandboxes',
      'readmodels.tokens',
      'readmodels.spend_window',
      'readmodels.seat_needs',
      'schedules',
      'integrations',
    ],
  );
  t.ok(
    listed.lines.every((l) => l['checkpoint'] === null),
    'a store no node has run holds no checkpoint',
  );

  const rebuilt = await svc('rebuild', '--config', file);
  t.equal(rebuilt.code, 0, rebuilt.err);
  const events = rebuilt.lines.find((l) => l['name'] === 'events');
  t.match(events, { replayed: 12, seq: 12, checkpoint: 'written' });
  t.match(
    rebuilt.lines.find((l) => l['name'] === 'schedules'),
    { checkpoint: 'none' },
  );

  const after = await svc('list', '--config', file);
  t.match(
    after.lines.find((l) => l['name'] === 'events'),
    { checkpoint: { seq: 12, stale: false } },
  );

  // A checkpoint another version took is stale in the list, and replaced by a rebuild of that projection.
  const checkpoints = openCheckpoints(data);
  const held = checkpoints.load('events')!;
  checkpoints.save({ name: 'events', version: 999, stream: held.stream, seq: held.seq, state: held.state });
  checkpoints.close();
  t.equal((await svc('list', 'events', '--config', file)).code, 2, 'list takes no name');
  const listedStale = await svc('list', '--config', file);
  t.match(
    listedStale.lines.find((l) => l['name'] === 'events'),
    { checkpoint: { version: 999, stale: true } },
  );
  const one = await svc('rebuild', 'events', '--config', file);
  t.equal(one.code, 0, one.err);
  t.same(
    one.lines.map((l) => l['name']),
    ['events'],
    'only the named projection is rebuilt',
  );
  const reopened = openCheckpoints(data);
  t.teardown(() => reopened.close());
  t.not(reopened.load('events')?.version, 999, 'the fresh checkpoint is of the code version');
  t.equal(reopened.load('events')?.seq, 12);
  t.equal(reopened.load('events')?.stream, Streams.Events);
});

t.test('a node with native backends lists and rebuilds the work and pages projections too', async (t) => {
  const { file } = await store(t);
  const plain = await svc('rebuild', 'work', '--config', file);
  t.equal(plain.code, 2, 'no native tracker: no work projection');
  appendFileSync(file, 'tracker: {backend: native}\nknowledge: {backend: native}\n');
  const listed = await svc('list', '--config', file);
  t.equal(listed.code, 0, listed.err);
  t.match(
    listed.lines.filter((l) => l['name'] === 'work' || l['name'] === 'pages'),
    [
      { name: 'work', source: 'stream SVC_WORK' },
      { name: 'pages', source: 'stream SVC_PAGES' },
    ],
  );
  for (const name of ['work', 'pages']) {
    const rebuilt = await svc('rebuild', name, '--config', file);
    t.equal(rebuilt.code, 0, rebuilt.err);
    t.match(rebuilt.lines, [{ name, replayed: 0 }], `${name} rebuilt`);
  }
});

t.test('an unknown projection or verb is a usage error', async (t) => {
  const { file } = await store(t);
  const unknown = await svc('rebuild', 'nope', '--config', file);
  t.equal(unknown.code, 2);
  t.match(unknown.err, /no projection named nope: one of config, secrets, events/);
  const near = await svc('rebuild', 'event', '--config', file);
  t.equal(near.code, 2);
  t.match(near.err, /no projection named event \(did you mean events\?\): one of config, secrets, events/);
  const verb = await svc('replay', '--config', file);
  t.equal(verb.code, 2);
  t.match(verb.err, /unknown projections verb: replay/);
  const help = await svc('--help');
  t.equal(help.code, 0);
  t.match(help.out, /rebuild \[NAME\]/);
});

t.test('a store path that holds no store is refused by name and left as it was', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-projections-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'no-such-store');
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `api: {host: 127.0.0.1, port: ${await freePort()}}\nstream: {store_dir: ${missing}}\n`);
  for (const args of [
    ['projections', 'list', '--config', file],
    ['projections', 'rebuild', '--config', file],
    ['replay', '--stream', 'SVC_EVENTS', '--config', file],
  ]) {
    const out = capture();
    const err = capture();
    const code = await main(args, { SVC_LOG_LEVEL: 'silent' }, out, err);
    t.equal(code, 1, args.join(' '));
    t.match(err.text(), `no store at ${missing}`, 'named');
    t.notOk(existsSync(missing), 'no empty store created');
  }
});

t.test('a NAME no projection has is a usage error (exit 2) even while a node holds the store', async (t) => {
  const { file, data } = await store(t);
  // This process holds the store, as a running node does.
  const node = await openMemoryBus({ storeDir: data });
  t.teardown(() => node.close());
  const unknown = await svc('rebuild', 'nope', '--config', file);
  t.equal(unknown.code, 2, unknown.err);
  t.match(unknown.err, /no projection named nope: one of config, secrets, events/);
  t.notMatch(unknown.err, /in use/, 'the name is judged before the store is opened');
  const known = await svc('rebuild', 'events', '--config', file);
  t.equal(known.code, 1, 'a known name still meets the store in use');
  t.match(known.err, /in use by process/);
});
