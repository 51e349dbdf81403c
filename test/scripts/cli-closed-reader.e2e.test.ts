/**
 * `svc events tail | head -1`: once the reader has what it wants and goes away, the command's next write
 * meets a closed pipe (EPIPE). The command stops as a filter does, exit 0 with nothing on stderr, instead of
 * dying on an unhandled 'error' event with a stack trace. A command that changes the machine's state
 * (`projections rebuild`) is not cut midway: it finishes its work and exits with its own code.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { ensureCatalogue, newEvent, openBus, publishEvent } from '../../bus/index.js';
import { main } from '../../scripts/svc.js';
import { freePort, svcBin } from '../harness/child.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startEventsNode } from '../http/fixtures/events-node.js';

let clock = Date.now() - 60_000;
const ev = (type: string) =>
  newEvent({
    now: new Date((clock += 1000)),
    type,
    category: 'task',
    source: 'test',
    summary: type,
    actor: 'system',
  });

t.test('svc events tail into a reader that closed exits 0 without a stack trace', async (t) => {
  const { h, bus } = await startEventsNode(t);
  const child = spawn(process.execPath, [svcBin, 'events', 'tail', '--url', h.base], {
    env: { PATH: process.env['PATH'] },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stderr = '';
  const tailing = new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('tailing')) resolve();
    });
  });
  await tailing;

  // The reader takes one line and goes away, as `head -1` does.
  const first = ev('TaskCreated');
  const lines = createInterface({ input: child.stdout });
  const line = once(lines, 'line') as Promise<[string]>;
  await publishEvent(bus, first);
  const [text] = await line;
  t.equal((JSON.parse(text) as { id: string }).id, first.id, 'the first event reached the reader');
  lines.close();
  child.stdout.destroy();

  // Every later event is a write into the closed pipe; a few, so one lands after the close whatever the timing.
  const stop = setInterval(() => void publishEvent(bus, ev('TaskCreated')), 50);
  t.teardown(() => clearInterval(stop));
  const [code, signal] = await exited;
  clearInterval(stop);
  t.equal(signal, null, 'not killed by a signal');
  t.equal(code, 0, 'a reader that has gone is a clean end');
  t.notMatch(stderr, /EPIPE|Error|at /, `no stack trace: ${stderr}`);
  t.match(stderr.trim(), /^tailing ws:\/\/\S+$/, 'stderr holds only the tail banner');
});

t.test('svc projections rebuild into a closed reader still rebuilds every projection', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-closed-reader-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const data = join(dir, 'data');
  const file = join(dir, 'config.yaml');
  // On JetStream every projection's replay waits on the server, so the closed pipe's error arrives midway.
  const nats = await startNatsServer({ t });
  writeFileSync(
    file,
    [
      `providers: {queue: {type: jetstream, url: "${nats.url}"}}`,
      `api: {host: 127.0.0.1, port: ${await freePort()}}`,
      `stream: {store_dir: ${data}}`,
    ].join('\n'),
  );
  const bus = await openBus({ type: 'jetstream', url: nats.url });
  await ensureCatalogue(bus);
  await publishEvent(bus, ev('TaskCreated'));
  await bus.close();

  const child = spawn(process.execPath, [svcBin, 'projections', 'rebuild', '--config', file], {
    env: { PATH: process.env['PATH'], SVC_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  // Closed before the child has started: its first line already meets EPIPE.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  t.equal(code, 0, `the rebuild's own exit code: ${stderr}`);
  t.notMatch(stderr, /EPIPE|Error/, 'no stack trace');

  let listed = '';
  const listing = await main(
    ['projections', 'list', '--config', file],
    { SVC_LOG_LEVEL: 'silent' },
    { write: (s: string) => (listed += s) },
    { write: () => true },
  );
  t.equal(listing, 0);
  const rows = listed
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { name: string; checkpoint: unknown });
  // `events` is rebuilt after two projections that wrote a line each into the closed pipe; it checkpoints.
  t.match(
    rows.find((r) => r.name === 'events'),
    { checkpoint: { seq: 1, stale: false } },
    'the rebuild went on past the closed reader',
  );
});
