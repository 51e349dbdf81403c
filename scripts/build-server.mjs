// Builds the node and the command line into dist/scripts/: svc.js and the chunks its commands load on
// demand (esbuild, code splitting). One bundle instead of tsc's file per module: a node starts about a
// quarter sooner and a client command loads a handful of files, since resolving and compiling hundreds
// of modules was most of a start. Packages stay in node_modules (native addons among them). Types are
// checked by `tsc --noEmit` (scripts/test.sh), not here. Run by `npm run build` (and so by `npm ci`).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaBarrelImports } from './schema-barrel-imports.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// What an earlier per-module build left: never loaded by the bundle, only confusing beside it.
for (const folder of ['schema', 'bus', 'actors', 'projections', 'http', 'scripts'])
  rmSync(join(dist, folder), { recursive: true, force: true });

await build({
  entryPoints: [join(root, 'scripts', 'svc.ts')],
  outdir: join(dist, 'scripts'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  // Chunks beside the entry: code that finds files from its own location sees one layout.
  chunkNames: '[name]-[hash]',
  logLevel: 'warning',
  plugins: [schemaBarrelImports(root)],
});
