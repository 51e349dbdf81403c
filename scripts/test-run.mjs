// Runs the test suite: each test file bundled with the project modules it imports (packages external)
// and run by plain node, three at a time, its TAP nested under the file's name as tap's own runner does
// (scripts/tap-count.mjs counts either). Why not `tap` itself: each of its ~310 test processes paid about
// 2.5 s of CPU before its first test — tsx's loader hooks compiling and resolving hundreds of modules, and
// tap's process-info hook — a third of the suite on two cores. Every `import.meta.url`, `.dirname` and
// `.filename` in a bundle is its original module's, so fixtures, the built node and sibling files are found
// as from source. The inner loop keeps tap: `npx tap test/x.test.ts`, `npm run test:unit`.
// Usage: node scripts/test-run.mjs [test files...]   (default: every test/**/*.test.ts)
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Each run bundles into its own directory, so two runs at once (two terminals, an editor's runner) never
// delete or overwrite each other's bundles; a run's directory goes when it ends, a killed run's at the next start.
const runs = join(root, '.tap', 'bundles');
const bundles = join(runs, `run-${process.pid}`);
const jobs = Number(process.env.SVC_TEST_JOBS ?? 3);
// A file's limit, as .taprc's `timeout`: generous for two shared cores; a hang still ends.
const timeoutMs = 300_000;

async function testFiles(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await testFiles(path)));
    else if (entry.name.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

/** Each project module keeps its own location: its `import.meta` facts become literals of its path. */
const ownLocation = {
  name: 'own-location',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

const bundleOf = (file) => join(bundles, file.replace(/\.ts$/, '.mjs'));

/** Removes the directories of runs whose process is gone (killed before it could remove its own). */
async function removeStaleRuns() {
  const entries = await readdir(runs, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const pid = /^run-(\d+)$/.exec(entry.name)?.[1];
    // Bundles of the layout before per-run directories, or of a run no longer alive.
    if (pid === undefined ? entry.isDirectory() && entry.name === 'test' : !alive(Number(pid)))
      await rm(join(runs, entry.name), { recursive: true, force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function bundle(files) {
  await removeStaleRuns();
  await rm(bundles, { recursive: true, force: true });
  process.once('exit', () => rmSync(bundles, { recursive: true, force: true }));
  await build({
    entryPoints: files.map((f) => join(root, f)),
    outdir: bundles,
    outbase: root,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // Run with --enable-source-maps: a failure's stack names the TypeScript line.
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [ownLocation],
    logLevel: 'warning',
  });
}

/** End-to-end files first, then integration, then unit: the long ones never start last. */
const weight = (file) => (file.includes('.e2e.') ? 0 : file.includes('.int.') ? 1 : 2);

/** Runs one bundled file; resolves with its exit status and its TAP. */
function runFile(file) {
  return new Promise((resolve) => {
    const started = performance.now();
    // Its own process group: a file past its limit is killed with whatever it started.
    const child = spawn(process.execPath, ['--enable-source-maps', bundleOf(file)], {
      cwd: root,
      env: { ...process.env, TAP_TIMEOUT: String(timeoutMs / 1000) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        ok: code === 0 && !timedOut,
        ms: performance.now() - started,
        tap: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
        why: timedOut
          ? `timed out after ${timeoutMs / 1000} s`
          : signal
            ? `killed by ${signal}`
            : `exit ${code}`,
      });
    });
  });
}

const indent = (text) =>
  text
    .split('\n')
    .filter((line) => line !== 'TAP version 14')
    .map((line) => (line === '' ? '' : `    ${line}`))
    .join('\n');

const given = process.argv.slice(2);
const files = (given.length > 0 ? given : await testFiles(join(root, 'test'))).sort(
  (a, b) => weight(a) - weight(b) || a.localeCompare(b, 'en'),
);
const suiteStarted = performance.now();
await bundle(files);
process.stdout.write('TAP version 14\n');
let next = 0;
let reported = 0;
let failed = 0;
await Promise.all(
  Array.from({ length: Math.min(jobs, files.length) }, async () => {
    while (next < files.length) {
      const file = files[next++];
      const result = await runFile(file);
      reported += 1;
      if (!result.ok) failed += 1;
      const head = `# Subtest: ${file}\n${indent(result.tap)}\n`;
      const diag = result.ok
        ? ''
        : `  ---\n  reason: ${JSON.stringify(result.why)}\n  stderr: ${JSON.stringify(result.stderr.slice(-4000))}\n  ...\n`;
      process.stdout.write(
        `${head}${result.ok ? 'ok' : 'not ok'} ${reported} - ${file} # time=${result.ms.toFixed(3)}ms\n${diag}\n`,
      );
    }
  }),
);
process.stdout.write(`1..${files.length}\n# time=${(performance.now() - suiteStarted).toFixed(3)}ms\n`);
process.exit(failed > 0 ? 1 : 0);
