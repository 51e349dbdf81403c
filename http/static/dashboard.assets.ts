/**
 * The dashboard's built files (spec "What the service does" 4): the shell, its hashed assets and the
 * favicon, read into memory once at start. `npm run build` writes them to `dist/dashboard/`
 * (`dashboard/build.mjs`); a checkout that was never built serves a plain page saying so.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  readonly body: Buffer;
  readonly type: string;
  /** Its name carries a content hash: cached for a year, never revalidated. */
  readonly immutable: boolean;
}

export interface DashboardAssets {
  readonly shell: Buffer;
  /** By name under `/static/`. */
  readonly files: ReadonlyMap<string, StaticFile>;
  readonly favicon: StaticFile | null;
  /** False when no build was found: the shell then explains how to build it. */
  readonly built: boolean;
}

const types: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** `main-4F2KQX7D.js`: esbuild's `[name]-[hash]` entry names. */
const hashed = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

/** Where the build lands, seen from the bundle in `dist/scripts/` (a built node) or `http/static/` (tests from source). */
function defaultDir(): string | null {
  for (const rel of ['../dashboard/', '../../dist/dashboard/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

const unbuilt = Buffer.from(
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc</title></head><body>' +
    '<h1>svc</h1><p>The dashboard has not been built on this node. Run <code>npm run build</code> ' +
    '(<code>npm ci</code> does it) and restart the node.</p></body></html>',
);

/** Reads a build directory (default: the one next to this module) into memory. */
export function loadDashboardAssets(dir: string | null = defaultDir()): DashboardAssets {
  if (dir === null || !existsSync(join(dir, 'index.html')))
    return { shell: unbuilt, files: new Map(), favicon: null, built: false };
  const files = new Map<string, StaticFile>();
  const staticDir = join(dir, 'static');
  if (existsSync(staticDir)) {
    for (const name of readdirSync(staticDir)) {
      const path = join(staticDir, name);
      if (!statSync(path).isFile()) continue;
      files.set(name, {
        body: readFileSync(path),
        type: types[extname(name)] ?? 'application/octet-stream',
        immutable: hashed.test(name),
      });
    }
  }
  const faviconPath = join(dir, 'favicon.svg');
  const favicon = existsSync(faviconPath)
    ? { body: readFileSync(faviconPath), type: 'image/svg+xml', immutable: false }
    : null;
  return { shell: readFileSync(join(dir, 'index.html')), files, favicon, built: true };
}
