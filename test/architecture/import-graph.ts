/**
 * The project's import graph, read from the source text: the architecture tests ask it for cycles, for the
 * imports of one file and for barrels that re-export wholesale. Reading text keeps the check independent of the
 * compiler and fast (the whole tree in well under a second).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const sourceFolders = ['schema', 'bus', 'actors', 'projections', 'http', 'scripts'] as const;

export interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  readonly path: string;
  readonly text: string;
  /** Every module specifier the file imports or re-exports (type-only ones included). */
  readonly specifiers: readonly string[];
  /** The project files those specifiers resolve to. */
  readonly imports: readonly string[];
}

// `import … from 'x'`, `export … from 'x'`, `import 'x'` and `import('x')`; comments are stripped first.
const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

function walk(root: string, dir: string, out: string[]): void {
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) walk(root, rel, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(rel);
  }
}

export function readSources(
  root: string,
  folders: readonly string[] = sourceFolders,
): Map<string, SourceFile> {
  const paths: string[] = [];
  for (const folder of folders) walk(root, folder, paths);
  const known = new Set(paths);
  const files = new Map<string, SourceFile>();
  for (const path of paths) {
    const text = readFileSync(join(root, path), 'utf8');
    const specifiers = [...stripComments(text).matchAll(specifierPattern)].map((m) => m[1] ?? '');
    const imports = specifiers
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(root, resolve(root, dirname(path), s)).replace(/\.js$/, '.ts'))
      .filter((p) => known.has(p));
    files.set(path, { path, text, specifiers, imports });
  }
  return files;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function importCycles(files: ReadonlyMap<string, SourceFile>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of files.get(v)?.imports ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (;;) {
      const w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    const selfLoop = component.length === 1 && (files.get(v)?.imports ?? []).includes(v);
    if (component.length > 1 || selfLoop) cycles.push(component.sort());
  };

  for (const v of [...files.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/** One path through a cycle, for a readable failure message. */
export function cyclePath(files: ReadonlyMap<string, SourceFile>, component: readonly string[]): string {
  const members = new Set(component);
  const start = component[0] ?? '';
  const path = [start];
  const seen = new Set([start]);
  let at = start;
  for (;;) {
    const step = (files.get(at)?.imports ?? []).find((w) => members.has(w) && (w === start || !seen.has(w)));
    if (step === undefined || step === start) break;
    path.push(step);
    seen.add(step);
    at = step;
  }
  return [...path, start].join(' → ');
}
