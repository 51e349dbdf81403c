/**
 * Ctrl-C ends `svc events tail` as a shell expects of an interrupted command: exit 128 + the signal (130 for
 * SIGINT, 143 for SIGTERM), so `svc events tail > log && next` does not go on as if the tail had finished,
 * and nothing but the banner on stderr (no stack trace, no "the node closed the stream").
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import t from 'tap';
import { svcBin } from '../harness/child.js';
import { startEventsNode } from '../http/fixtures/events-node.js';

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  t.test(`svc events tail stopped by ${signal} exits ${code}, saying nothing more`, async (t) => {
    const { h } = await startEventsNode(t);
    const child = spawn(process.execPath, [svcBin, 'events', 'tail', '--url', h.base], {
      env: { PATH: process.env['PATH'] },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => void child.kill('SIGKILL'));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('tailing')) resolve();
      });
    });
    child.kill(signal);
    const [exitCode] = await exited;
    t.equal(exitCode, code, `128 + the number of ${signal}`);
    t.match(stderr.trim(), /^tailing ws:\/\/\S+$/, 'stderr holds only the tail banner');
  });
}
