import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { root } from '../harness/child.js';

t.test(
  'a line logged while a stdout write is held up still goes out once the reader drains, with no later line',
  async (t) => {
    const child = spawn(
      process.execPath,
      ['--import=tsx', join(root, 'test', 'scripts', 'fixtures', 'log-burst.ts')],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    t.teardown(() => child.kill('SIGKILL'));
    // Read nothing until the child has logged its last line and its flush timer has ticked past it:
    // the burst fills the pipe, so a write is in flight through every one of those ticks.
    child.stdout.pause();
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('burst-done')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const seen: string[] = [];
    const last = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`"last line" never came; ${seen.length} lines read`)),
        10_000,
      );
      createInterface({ input: child.stdout }).on('line', (text) => {
        const { msg } = JSON.parse(text) as { msg: string };
        seen.push(msg);
        if (msg === 'last line') {
          clearTimeout(timer);
          resolve(msg);
        }
      });
    });
    t.equal(last, 'last line');
    t.equal(seen.filter((m) => m === 'burst').length, 60, 'every burst line came before it');
  },
);

t.test('lines of any length and UTF-8 width reach stdout whole and in order', async (t) => {
  const child = spawn(
    process.execPath,
    ['--import=tsx', join(root, 'test', 'scripts', 'fixtures', 'log-mixed.ts')],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.teardown(() => child.kill('SIGKILL'));
  const lines: Array<{ i: number; text: string; msg: string }> = [];
  createInterface({ input: child.stdout }).on('line', (text) =>
    lines.push(JSON.parse(text) as { i: number; text: string; msg: string }),
  );
  await new Promise((resolve) => child.once('close', resolve));
  t.equal(lines.length, 3000, 'every line, none split or joined');
  t.ok(
    lines.every((l, i) => l.i === i),
    'in the order they were logged',
  );
  t.equal(lines[1500]?.text.length, 100_000, 'a line longer than a batch buffer, whole');
  t.equal(lines[2]?.text, 'é€😀'.repeat(2), 'multi-byte text unchanged');
});

t.test(
  'a standard output nobody reads holds at most 16 MiB of lines; the rest are dropped and counted in one line',
  async (t) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import=tsx', join(root, 'test', 'scripts', 'fixtures', 'log-flood.ts')],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    t.teardown(() => child.kill('SIGKILL'));
    child.stdout.pause();
    let stderr = '';
    const held = await new Promise<number>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const said = /held=(\d+)/.exec(stderr);
        if (said) resolve(Number(said[1]));
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    t.ok(held < 40 * 1024 * 1024, `80 MiB logged, ${held} bytes of buffers held`);
    let flood = 0;
    let droppedSaid = 0;
    let last = false;
    const closed = new Promise<void>((resolve) => child.stdout.once('end', resolve));
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as { msg: string; event?: string; dropped?: number };
      if (line.msg === 'flood') flood += 1;
      if (line.event === 'log_lines_dropped') droppedSaid += line.dropped ?? 0;
      if (line.msg === 'last line') last = true;
    });
    await closed;
    t.ok(droppedSaid > 0, 'the drop is said');
    t.equal(flood + droppedSaid, 4_000, 'every line either written or counted as dropped');
    t.ok(last, 'a line logged once there was room again is written');
  },
);
