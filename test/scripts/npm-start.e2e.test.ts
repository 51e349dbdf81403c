/**
 * `npm start` is how an operator (and Docker, pm2, a plain `kill $PID`) runs the node, so a SIGTERM
 * sent to the npm process must drain the node and free its port and store, not orphan it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t, { type Test } from 'tap';
import { freePort, root } from '../harness/child.js';

/** Whether a TCP port on loopback can be bound right now. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  try {
    await once(server, 'listening'); // rejects on 'error' (EADDRINUSE)
  } catch {
    return false;
  }
  server.close();
  await once(server, 'close');
  return true;
}

/** A process exists and is not a zombie (an exited child its new parent has not reaped yet). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Runs `npm <args…> --config <temp file>` until the node serves, SIGTERMs npm, and checks what is left. */
async function signalNpm(t: Test, npmArgs: readonly string[], npmExit: unknown[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-npm-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const store = join(dir, 'data');
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      'providers: {queue: {type: memory}}',
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `stream: {store_dir: ${store}}`,
    ].join('\n'),
  );
  const npm = spawn('npm', [...npmArgs, '--config', configFile], {
    cwd: root,
    env: { PATH: process.env['PATH'], HOME: dir, SVC_TOKEN: 'npm-start-token-0123456789' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const npmPid = npm.pid ?? 0;
  let nodePid = 0;
  t.teardown(() => {
    if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    if (nodePid > 0 && alive(nodePid)) process.kill(nodePid, 'SIGKILL');
  });
  const exited = once(npm, 'exit');
  let stderr = '';
  npm.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const messages: string[] = [];
  const drained = new Promise<void>((resolve) => {
    createInterface({ input: npm.stdout }).on('line', (text) => {
      try {
        const msg = (JSON.parse(text) as { msg?: string }).msg ?? '';
        messages.push(msg);
        if (msg === 'drain finished') resolve();
      } catch {
        // npm's own banner lines
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (messages.includes('node serving')) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`npm exited before the node served\n${stderr}`));
    });
  });

  // The store's lock file names the node's pid: the process that must end up signalled.
  nodePid = Number.parseInt(readFileSync(join(store, 'bus.lock'), 'utf8'), 10);
  t.ok(nodePid > 0 && nodePid !== npmPid, 'the node runs as its own process under npm');
  t.notOk(await portIsFree(port), 'the node holds its port while serving');

  process.kill(npmPid, 'SIGTERM');
  t.same(await exited, npmExit, `npm exits with ${JSON.stringify(npmExit)}`);
  // npm may exit before the node when a shell sits between them: wait for the node's own record.
  await drained;
  // The node holds the stdout pipe it inherited until it exits.
  if (!npm.stdout.closed) await once(npm.stdout, 'close');
  t.ok(messages.includes('drain started'), 'the node drained');
  t.notOk(alive(nodePid), 'no node process is left behind');
  t.ok(await portIsFree(port), 'the port is free for the next start');
  t.notOk(existsSync(join(store, 'bus.lock')), 'the store lock is released for the next start');
}

t.test(
  'SIGTERM to the npm start process drains the node, frees its port and releases the store',
  async (t) => {
    // npm waits for the node (exec'd in place of the shell) and reports its exit code.
    await signalNpm(t, ['start', '--silent', '--'], [0, null]);
  },
);

t.test(
  'SIGTERM to npm exec (a shell between npm and the node, as npx svc serve) still drains the node',
  async (t) => {
    // The shell dies of the forwarded signal, so npm re-raises it on itself; the node drains after.
    await signalNpm(t, ['exec', '--silent', '--', 'node', 'dist/scripts/svc.js', 'serve'], [null, 'SIGTERM']);
  },
);
