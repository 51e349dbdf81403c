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
