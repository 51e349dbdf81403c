// Builds the dashboard into dist/dashboard/: one hashed script and stylesheet under static/, the icon,
// and the shell (index.html) naming them. No inline script or style anywhere: the dashboard CSP allows
// same-origin files only. Run by `npm run build` (and so by `npm ci`).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'dashboard');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'static'), { recursive: true });

const result = await build({
  entryPoints: [join(here, 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: join(out, 'static'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const script = outputs.find((name) => name.endsWith('.js'));
const style = outputs.find((name) => name.endsWith('.css'));
if (!script || !style) throw new Error(`dashboard build: expected a script and a stylesheet, got ${outputs}`);

// The icon: hashed under static/ for the shell, and as favicon.svg for /favicon.ico.
const icon = readFileSync(join(here, 'icon.svg'));
const iconHash = createHash('sha256').update(icon).digest('hex').slice(0, 8).toUpperCase();
const iconName = `icon-${iconHash}.svg`;
writeFileSync(join(out, 'static', iconName), icon);
writeFileSync(join(out, 'favicon.svg'), icon);

const shell = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc dashboard</title>
<link rel="icon" href="/static/${iconName}" type="image/svg+xml">
<link rel="stylesheet" href="/static/${style}">
<script type="module" src="/static/${script}"></script>
</head>
<body>
<div id="app"><noscript>The svc dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
writeFileSync(join(out, 'index.html'), shell);
console.log(`dashboard: ${script}, ${style}, ${iconName}`);
