/**
 * The local backend under `sandbox.isolation: bubblewrap`, with the real `bwrap` (Debian package
 * bubblewrap, installed by scripts/test.sh): what a run can and cannot reach, its exit code kept by the
 * wrapper outside the sandbox, a stop that ends everything in it, and the start-up probe.
 */
import { createServer } from 'node:net';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  bubblewrapIsolation,
  localBackend,
  probeIsolation,
  processIsolation,
  type Isolation,
} from '../../../actors/index.js';
import type { Launched, Observation, SandboxBackend } from '../../../actors/sandbox/backend.js';
import { pidsRunning } from '../../harness/proc.js';

function scratch(tt: Test, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `svc-isolation-${name}-`));
  tt.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Launches `command` as a run's agent and waits (polling its control files, as the supervisor does) for its end. */
async function runToEnd(
  backend: SandboxBackend,
  command: string,
  setup: string[] = [],
): Promise<{ run: Launched; end: Observation; log: string }> {
  const run = await backend.launch({
    sandbox_id: `sb-${Math.random().toString(36).slice(2, 10)}`,
    task: 'probe the sandbox',
    settings: { setup, env: {}, command },
    env: {},
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const seen = await backend.observe(run);
    if (seen.result !== null || seen.gone !== null) {
      const log = readFileSync(join(run.workdir, '..', 'control', 'agent.log'), 'utf8');
      return { run, end: seen, log };
    }
    if (Date.now() > deadline) throw new Error('the run did not end in 20 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const isolated = (store: string, network: 'host' | 'none'): Isolation =>
  bubblewrapIsolation({ network, hide: [store] });

t.test(
  'the probe accepts a machine where bwrap works and names the package when it is missing',
  async (tt) => {
    tt.equal(await probeIsolation(bubblewrapIsolation({ network: 'none', hide: [] })), null);
    const missing = await probeIsolation(
      bubblewrapIsolation({ network: 'none', hide: [], bin: '/nonexistent/bwrap' }),
    );
    tt.match(missing, /not found on PATH.*bubblewrap/);
  },
);

t.test('an isolated run writes its own directory and nothing of the machine outside it', async (tt) => {
  const store = scratch(tt, 'store');
  writeFileSync(join(store, 'keyring.yaml'), 'material: secret-canary\n');
  const home = scratch(tt, 'home');
  writeFileSync(join(home, 'notes.txt'), 'home-canary\n');
  const backend = localBackend({ root: join(store, 'sandboxes'), isolation: isolated(store, 'none') });
  const script = [
    'echo made > made.txt',
    `cat ${join(store, 'keyring.yaml')} 2>/dev/null && echo READ_STORE`,
    `cat ${join(home, 'notes.txt')} 2>/dev/null && echo READ_HOME`,
    'touch /usr/svc-escape 2>/dev/null && echo WROTE_USR',
    'touch /etc/svc-escape 2>/dev/null && echo WROTE_ETC',
    'test -r /usr/bin/env && echo SEES_USR',
    'echo "pid $$"',
    'exit 7',
  ].join('; ');
  const { run, end, log } = await runToEnd(backend, script, ['echo setup > from-setup.txt']);
  tt.equal(end.gone, 'the coding agent exited with code 7', 'the wrapper outside kept the exit code');
  tt.equal(
    readFileSync(join(run.workdir, 'made.txt'), 'utf8'),
    'made\n',
    'the working directory is writable',
  );
  tt.ok(existsSync(join(run.workdir, 'from-setup.txt')), 'setup steps ran in the working directory');
  tt.notMatch(log, /READ_STORE|secret-canary/, 'the store is not there');
  tt.notMatch(log, /READ_HOME|home-canary/, 'other directories are not there');
  tt.notMatch(log, /WROTE_USR|WROTE_ETC/, 'the system directories are read-only');
  tt.match(log, /SEES_USR/, 'programs are there');
  tt.match(log, /pid [0-9]\b/, 'the run has its own pid namespace');
  tt.notOk(existsSync('/usr/svc-escape'));
});

t.test('a store under a system directory is hidden too', async (tt) => {
  // A path inside /etc's view: a directory is covered by an empty tmpfs, a file by /dev/null.
  const isolation = bubblewrapIsolation({
    network: 'none',
    hide: ['/etc/apt', '/etc/hostname', '/etc/svc-not-there'],
  });
  const base = scratch(tt, 'base');
  const { args } = isolation.command(['true'], { base, cwd: base, dieWithParent: false });
  const bound = args.indexOf('/etc');
  tt.ok(args.join(' ').includes('--tmpfs /etc/apt'), 'a hidden directory is covered');
  tt.ok(args.join(' ').includes('--ro-bind /dev/null /etc/hostname'), 'a hidden file is covered');
  tt.ok(args.indexOf('/etc/apt') > bound, 'after /etc is bound');
  tt.notOk(args.includes('/etc/svc-not-there'), 'a path that is not there is left alone');
  tt.ok(args.lastIndexOf(base) > args.indexOf('/etc/apt'), 'the run’s own directory is bound last');
  tt.notOk(args.includes('--share-net'));
  const { log } = await runToEnd(
    localBackend({ root: join(base, 'runs'), isolation }),
    'echo "[$(cat /etc/hostname)]"; echo "apt: $(ls /etc/apt | wc -l) entries"',
  );
  tt.match(log, /\[\]/, 'the hidden file reads empty');
  tt.match(log, /apt: 0 entries/, 'the hidden directory is empty');
});

t.test('network none leaves the run only its own loopback; host shares the node’s', async (tt) => {
  const server = createServer((socket) => socket.end('hello\n'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  tt.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  const connect = `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo "GOT $(cat <&3)"' || { echo REFUSED; exit 3; }`;
  const store = scratch(tt, 'net');
  const none = await runToEnd(
    localBackend({ root: join(store, 'a'), isolation: isolated(store, 'none') }),
    connect,
  );
  tt.match(none.log, /REFUSED/);
  tt.equal(none.end.gone, 'the coding agent exited with code 3');
  const host = await runToEnd(
    localBackend({ root: join(store, 'b'), isolation: isolated(store, 'host') }),
    connect,
  );
  tt.match(host.log, /GOT hello/);
  tt.equal(host.end.result?.status, 'done');
});

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

t.test('stopping an isolated run ends every process in it, even one that left its group', async (tt) => {
  const store = scratch(tt, 'stop');
  const backend = localBackend({ root: join(store, 'sandboxes'), isolation: isolated(store, 'none') });
  // setsid: out of the run's process group, where a plain process run's stop cannot reach it.
  const marker = ['sleep', String(6_000 + Math.floor(Math.random() * 3_000))];
  const run = await backend.launch({
    sandbox_id: 'sb-stop',
    task: 'hold',
    settings: { setup: [], env: {}, command: `setsid ${marker.join(' ')} & echo started > started; wait` },
    env: {},
  });
  await until(() => existsSync(join(run.workdir, 'started')), 'the run starts');
  await until(() => pidsRunning(marker).length === 1, 'the escaped process runs');
  tt.equal((await backend.observe(run)).gone, null, 'running');
  await backend.stop(run);
  await until(() => pidsRunning(marker).length === 0, 'the escaped process ends with the sandbox');
  tt.not((await backend.observe(run)).gone, null, 'the run is gone');
});

t.test('what a run leaves running when its agent exits ends with it', async (tt) => {
  const store = scratch(tt, 'leftover');
  // A plain process run ends its process group; an isolated one its namespace, a process that left the group included.
  for (const [isolation, detach] of [
    [processIsolation, ''],
    [isolated(store, 'none'), 'setsid '],
  ] as const) {
    const marker = ['sleep', String(6_000 + Math.floor(Math.random() * 3_000))];
    const { end } = await runToEnd(
      localBackend({ root: join(store, isolation.kind), isolation }),
      // Exits only once the leftover runs (so its end is not a start that never came).
      `${detach}${marker.join(' ')} > /dev/null 2>&1 & while ! grep -q '^sleep' /proc/$!/cmdline 2>/dev/null; do :; done; exit 0`,
    );
    tt.equal(end.result?.status, 'done', `${isolation.kind}: the run is done`);
    await until(() => pidsRunning(marker).length === 0, `${isolation.kind}: the process left behind ends`);
  }
});
