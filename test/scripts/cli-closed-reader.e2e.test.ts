/**
 * `svc events tail | head -1`: once the reader has what it wants and goes away, the command's next write
 * meets a closed pipe (EPIPE). The command stops as a filter does, exit 0 with nothing on stderr, instead of
 * dying on an unhandled 'error' event with a stack trace.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import t from 'tap';
import { newEvent, publishEvent } from '../../bus/index.js';
import { svcBin } from '../harness/child.js';
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
