/**
 * The deployment files hold what ops/deploy.md promises. Docker cannot run here, so the image and the
 * compose file are read as text and YAML; the Tier A files they ship go through the real validator, the
 * nats-server configuration through `nats-server -t`, the systemd unit through `systemd-analyze verify`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { parseTierA } from '../../schema/index.js';
import { root } from '../harness/child.js';

const read = (path: string): string => readFileSync(join(root, path), 'utf8');
type Json = Record<string, unknown>;

/** Longest a drain takes with the defaults: the turn grace (10 s) beside two 5 s listener closes, then the rest. */
const drainBoundSeconds = 30;

t.test(
  'the image is multi-stage on node 20 bookworm-slim, runs as a non-root user and checks /ready',
  async (t) => {
    const dockerfile = read('Dockerfile');
    const froms = dockerfile.match(/^FROM .+$/gm) ?? [];
    t.same(froms, ['FROM node:20-bookworm-slim AS build', 'FROM node:20-bookworm-slim'], 'two stages');
    const user = /^USER (\S+)$/m.exec(dockerfile)?.[1];
    t.ok(user !== undefined && user !== 'root' && user !== '0', `runs as ${user}`);
    t.match(dockerfile, /^HEALTHCHECK .*\n?.*http:\/\/127\.0\.0\.1:8080\/ready/m, 'health is /ready');
    t.match(
      dockerfile,
      /^CMD \["node", "dist\/scripts\/svc\.js", "serve"\]$/m,
      'exec form: SIGTERM reaches the node',
    );
    t.match(dockerfile, /^ARG WITH_NATS_SERVER=false$/m, 'nats-server is optional');
    t.match(dockerfile, /if \[ "\$WITH_NATS_SERVER" = "true" \].*apt-get install[^\n]*nats-server/s);
    t.match(dockerfile, /^ARG WITH_BUBBLEWRAP=false$/m, 'bubblewrap is optional');
    t.match(dockerfile, /if \[ "\$WITH_BUBBLEWRAP" = "true" \].*apt-get install[^\n]*bubblewrap/s);
    for (const line of dockerfile.match(/^COPY (?!--from)\S+/gm) ?? []) {
      const source = line.split(' ')[1]!;
      t.ok(existsSync(join(root, source)), `${source} exists in the build context`);
    }
    const ignored = read('.dockerignore').split('\n');
    for (const path of ['node_modules', 'dist', 'data', '.git'])
      t.ok(ignored.includes(path), `${path} stays out`);
  },
);

t.test('the container Tier A files pass the real validator', async (t) => {
  for (const file of ['ops/docker/config.yaml', 'ops/docker/config.cluster.yaml']) {
    const result = parseTierA(read(file), {
      env: { SVC_TOKEN: 'x-0123456789abcdef', SVC_NATS_TOKEN: 'y' },
      cwd: '/app',
    });
    t.ok(result.ok, `${file} is valid${result.ok ? '' : `: ${JSON.stringify(result.problems)}`}`);
    if (!result.ok) continue;
    t.equal(result.config.api.host, '0.0.0.0', 'reachable from outside the container');
    t.equal(result.config.api.port, 8080, 'the port the health check asks');
    t.equal(result.config.stream.store_dir, '/var/lib/svc', 'the store is in the volume');
  }
  const cluster = parseTierA(read('ops/docker/config.cluster.yaml'), {
    env: { SVC_TOKEN: 'x-0123456789abcdef' },
    cwd: '/',
  });
  t.match(cluster.ok && cluster.config.providers.queue, {
    type: 'jetstream',
    replicas: 3,
    url: 'nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222',
  });
});

t.test(
  'compose: one node on the memory engine, or three clustered nats-servers under a replicas-3 node',
  async (t) => {
    const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Json> };
    const { services } = compose;
    const inProfile = (profile: string): string[] =>
      Object.entries(services)
        .filter(([, s]) => (s['profiles'] as string[] | undefined)?.includes(profile))
        .map(([name]) => name)
        .sort();
    t.same(inProfile('single'), ['svc']);
    t.same(inProfile('cluster'), ['nats-1', 'nats-2', 'nats-3', 'svc-cluster']);
    t.same(
      Object.keys(services).filter((name) => services[name]!['profiles'] === undefined),
      [],
      'every service belongs to a profile',
    );
    for (const name of ['svc', 'svc-cluster']) {
      const service = services[name]!;
      const grace = Number(/^(\d+)s$/.exec(String(service['stop_grace_period']))?.[1]);
      t.ok(grace > drainBoundSeconds, `${name} waits ${grace} s for the drain before SIGKILL`);
      t.equal(service['init'], true, `${name} runs under an init that reaps tool-server processes`);
      t.ok(
        (service['volumes'] as string[]).some((v) => v.endsWith(':/var/lib/svc')),
        `${name} keeps its store in a volume`,
      );
    }
    t.match(services['svc-cluster']!['volumes'], [
      './ops/docker/config.cluster.yaml:/etc/svc/config.yaml:ro',
    ]);
    const routes = /routes: \[([^\]]+)\]/.exec(read('ops/docker/nats-cluster.conf'))?.[1] ?? '';
    for (const n of [1, 2, 3]) {
      const nats = services[`nats-${n}`]!;
      t.match(nats['image'], /^nats:2\.1\d/, 'nats-server 2.10 or later (sync_interval: always)');
      t.match(nats['environment'], { NATS_SERVER_NAME: `nats-${n}` });
      t.ok(routes.includes(`nats-route://nats-${n}:6222`), `the cluster routes name nats-${n}`);
      t.same(Object.keys((services['svc-cluster']!['depends_on'] as Json)[`nats-${n}`] as Json), [
        'condition',
      ]);
    }
  },
);

t.test('the nats-server cluster configuration is accepted by nats-server', async (t) => {
  // Debian's 2.9 refuses `sync_interval` (2.10 and later only, the image compose uses): check the rest.
  const conf = read('ops/docker/nats-cluster.conf').replace(/^\s*sync_interval: always\n/m, '');
  const file = join(t.testdir(), 'nats.conf');
  writeFileSync(file, conf);
  const env = { PATH: process.env['PATH'], NATS_SERVER_NAME: 'nats-1', SVC_NATS_TOKEN: 't' };
  const ok = spawnSync('/usr/sbin/nats-server', ['-c', file, '-t'], { env, encoding: 'utf8' });
  t.equal(ok.status, 0, ok.stderr + ok.stdout);
  const without = spawnSync('/usr/sbin/nats-server', ['-c', file, '-t'], {
    env: { PATH: process.env['PATH'], NATS_SERVER_NAME: 'nats-1' },
    encoding: 'utf8',
  });
  t.not(without.status, 0, 'a server without SVC_NATS_TOKEN refuses to start');
});

t.test('the systemd unit stops by draining: SIGTERM to the node, a timeout above the drain', async (t) => {
  const unit = read('ops/svc.service');
  const value = (key: string): string | undefined => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1];
  t.equal(value('KillSignal'), 'SIGTERM');
  // The node stops its own tool servers during the drain; coding runs outlive a restart (ops/deploy.md).
  t.equal(
    value('KillMode'),
    'process',
    'a stop signals the node alone and leaves detached coding runs running',
  );
  t.ok(Number(value('TimeoutStopSec')) > drainBoundSeconds);
  t.match(value('ExecStart'), /svc\.js serve$/);
  t.not(value('User'), 'root');
  const analyze = spawnSync('systemd-analyze', ['verify', join(root, 'ops', 'svc.service')], {
    encoding: 'utf8',
  });
  if (analyze.error) t.comment('systemd-analyze is not installed: syntax not verified');
  else t.equal(analyze.stderr + analyze.stdout, '', 'systemd-analyze finds nothing to warn about');
});
