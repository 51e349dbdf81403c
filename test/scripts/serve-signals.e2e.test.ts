/**
 * `svc serve` catches SIGTERM from the start (scripts/serve-cli.ts): a signal that arrives while the node
 * still reads its configuration is kept, the node boots, drains and exits 0. The Tier A file is a named
 * pipe, so the test knows the moment the child reads it: opening the pipe's writing end waits for that.
 * The child runs without the test runner's preload (NODE_OPTIONS), whose own signal listeners would catch
 * the signal before the node's do.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort, svcBin, type LogLine } from '../harness/child.js';

t.test(
  'a SIGTERM that arrives while serve reads its configuration drains the node and exits 0',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-signals-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'config.yaml');
    execFileSync('mkfifo', [configFile]);
    const port = await freePort();
    const child = spawn(
      'env',
      ['-u', 'NODE_OPTIONS', process.execPath, svcBin, 'serve', '--config', configFile],
      {
        env: { PATH: process.env['PATH'] },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    t.teardown(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    // Resolves once the child opened the pipe to read it: it is loading its configuration now.
    const pipe = await open(configFile, 'w');
    child.kill('SIGTERM');
    await pipe.write(
      [
        'providers: {queue: {type: memory}}',
        `api: {host: 127.0.0.1, port: ${port}}`,
        `stream: {store_dir: ${join(dir, 'data')}}`,
        '',
      ].join('\n'),
    );
    await pipe.close();
    const [code, signal] = await exited;
    t.same({ code, signal }, { code: 0, signal: null }, `exit 0, not killed by the signal\n${out}`);
    const lines = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
    t.ok(
      lines.some((l) => l.msg === 'termination signal' && l['signal'] === 'SIGTERM'),
      'the signal is logged',
    );
    t.ok(
      lines.some((l) => l.msg === 'drain finished'),
      'the node booted and drained',
    );
  },
);
