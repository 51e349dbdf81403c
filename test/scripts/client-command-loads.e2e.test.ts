/**
 * What a client command of the built `svc` loads before it answers: its own CLI files and the few schema/
 * helpers they use, never the node it talks to (bus engines, actors, read models, gateway, serve) nor the
 * packages behind them (zod, YAML, pino, NATS, SQLite). Each of those costs start-up time at every CLI call,
 * and one barrel import or static import of the wrong module brings them all back. Asked of the process by
 * a loader hook that records every module URL, then mapped to source files through the chunks' source maps.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { root, svcBin } from '../harness/child.js';
import { freePort } from '../harness/free-port.js';

const recorder = join(root, 'test', 'harness', 'record-loads.mjs');
const dir = mkdtempSync(join(tmpdir(), 'svc-loads-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Loaded {
  readonly code: number | null;
  readonly stderr: string;
  /** Packages from node_modules, by name. */
  readonly packages: string[];
  /** The project's source files the loaded chunks were built from, relative to the root. */
  readonly sources: string[];
}

let runs = 0;
async function loadedBy(args: string[], env: Record<string, string> = {}): Promise<Loaded> {
  const file = join(dir, `loads-${++runs}.txt`);
  const child = spawn(process.execPath, ['--import', recorder, svcBin, ...args], {
    env: { PATH: process.env['PATH'], SVC_LOADS_FILE: file, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const paths = urls.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
  const packages = new Set<string>();
  const sources = new Set<string>();
  for (const path of paths) {
    const name = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(path)?.[1];
    if (name !== undefined) packages.add(name.replace(/\\/g, '/'));
    else if (path.startsWith(join(root, 'dist')) && path.endsWith('.js')) {
      const map = JSON.parse(readFileSync(`${path}.map`, 'utf8')) as { sources: string[] };
      for (const source of map.sources)
        sources.add(relative(root, resolve(path, '..', source)).replace(/\\/g, '/'));
    }
  }
  return { code, stderr, packages: [...packages].sort(), sources: [...sources].sort() };
}

// The node's own modules: a client talks to them over HTTP and never needs their code.
const nodeModule = /^(bus|actors|projections|http)\/|^scripts\/(serve|[a-z-]+-wiring)\b/;

function assertClientOnly(t: Test, loaded: Loaded): void {
  t.same(loaded.packages, [], 'no package: every one the CLI uses belongs to the node or to a rarer path');
  t.same(
    loaded.sources.filter((s) => nodeModule.test(s)),
    [],
    'none of the node: bus, actors, projections, gateway, serve or its wiring',
  );
  t.ok(loaded.sources.includes('scripts/svc.ts'), 'the sources are read from the loaded chunks');
}

t.test('client commands load neither the node nor its packages to show their help', async (t) => {
  const helps = [
    ['config', 'get', '--help'],
    ['events', 'list', '--help'],
    ['work', 'list', '--help'],
    ['pages', 'list', '--help'],
    ['fleet', '--help'],
    ['agents', '--help'],
    ['secrets', 'list', '--help'],
    ['backup', '--help'],
    ['projections', '--help'],
  ];
  for (const args of helps) {
    await t.test(`svc ${args.join(' ')}`, async (t) => {
      const loaded = await loadedBy(args);
      t.equal(loaded.code, 0);
      assertClientOnly(t, loaded);
    });
  }
});

t.test(
  'a client command that finds no node listening has loaded neither the node nor its packages',
  async (t) => {
    const url = `http://127.0.0.1:${await freePort()}`;
    for (const args of [
      ['config', 'get'],
      ['events', 'list'],
      ['work', 'list'],
      ['agents', 'list'],
    ]) {
      await t.test(`svc ${args.join(' ')}`, async (t) => {
        const loaded = await loadedBy(args, { SVC_URL: url });
        t.equal(loaded.code, 1);
        t.match(loaded.stderr, /cannot reach/, 'it sent its request');
        assertClientOnly(t, loaded);
      });
    }
  },
);

t.test('the recorder sees what a command does load: svc config schema builds the zod schemas', async (t) => {
  const loaded = await loadedBy(['config', 'schema']);
  t.equal(loaded.code, 0);
  t.ok(loaded.packages.includes('zod'), 'zod is loaded');
  t.ok(
    loaded.sources.includes('schema/company/company.schema.ts'),
    "the company document's schema is loaded",
  );
});
