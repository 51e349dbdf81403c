/**
 * The docs point at files that exist: every relative Markdown link (and its `#anchor`, read as GitHub
 * makes heading anchors) in README.md, ARCHITECTURE.md, ops/ and docs/, and every repository file a doc
 * names by path (`projections/runner/runner.ts`), so a moved file or a renamed heading fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import t from 'tap';
import { root } from '../harness/child.js';

function markdownUnder(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.isFile() && entry.name.endsWith('.md') ? [path] : [];
  });
}

const docs = ['README.md', 'ARCHITECTURE.md', ...markdownUnder('ops'), ...markdownUnder('docs')];

/** The lines outside fenced code blocks, with their numbers. */
function prose(text: string): Array<[number, string]> {
  let fenced = false;
  const out: Array<[number, string]> = [];
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) out.push([i + 1, line]);
  });
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, line] of prose(text)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const slug = plain
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug);
    seen.set(slug, (count ?? -1) + 1);
    anchors.add(count === undefined ? slug : `${slug}-${count + 1}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
const anchorsIn = (file: string): Set<string> => {
  let anchors = anchorCache.get(file);
  if (!anchors) anchorCache.set(file, (anchors = anchorsOf(readFileSync(join(root, file), 'utf8'))));
  return anchors;
};

t.test('the docs checked include the README, the architecture and every ops page', async (t) => {
  t.ok(docs.includes('README.md') && docs.includes('ARCHITECTURE.md'));
  t.ok(docs.filter((d) => d.startsWith('ops/')).length >= 20, `${docs.length} docs`);
});

t.test('every relative Markdown link points to an existing file and heading', async (t) => {
  const broken: string[] = [];
  let checked = 0;
  for (const doc of docs) {
    for (const [n, line] of prose(readFileSync(join(root, doc), 'utf8'))) {
      const outsideCode = line.replace(/`[^`]*`/g, '');
      for (const m of outsideCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        checked++;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? doc : normalize(join(dirname(doc), decodeURIComponent(path)));
        if (!existsSync(join(root, file))) broken.push(`${doc}:${n} ${target}: no file ${file}`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchorsIn(file).has(anchor))
          broken.push(`${doc}:${n} ${target}: no heading #${anchor} in ${file}`);
      }
    }
  }
  t.ok(checked > 100, `${checked} links checked`);
  t.same(broken, [], 'no broken link');
});

t.test('every repository file a doc names by path exists', async (t) => {
  const folders = 'ops|scripts|schema|bus|actors|http|projections|test|dashboard|docs';
  const named = new RegExp(
    `(?<![\\w/.-])((?:${folders})/[\\w./-]*\\.(?:ts|tsx|mjs|js|md|yaml|yml|json|sh|service|png|conf))(?![\\w/])`,
    'g',
  );
  const examples = new Set(['test/some.test.ts']); // the README's placeholder for "one test file"
  const missing: string[] = [];
  for (const doc of docs) {
    for (const [n, line] of prose(readFileSync(join(root, doc), 'utf8'))) {
      for (const m of line.matchAll(named)) {
        const path = m[1]!;
        if (examples.has(path)) continue;
        if (!existsSync(join(root, path)) && !existsSync(join(root, dirname(doc), path)))
          missing.push(`${doc}:${n} ${path}`);
      }
    }
  }
  t.same(missing, [], 'no stale path');
});

/** Every file name in the repository, outside what a build or an install writes. */
function namesInRepo(dir = '', into = new Set<string>()): Set<string> {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git', '.tap', 'data', 'coverage'].includes(entry.name)) continue;
    if (entry.isDirectory()) namesInRepo(join(dir, entry.name), into);
    else into.add(entry.name);
  }
  return into;
}

t.test('every source file a doc names by its bare name (`node.posture.ts`) exists', async (t) => {
  const names = namesInRepo();
  const missing: string[] = [];
  for (const doc of docs) {
    for (const [n, line] of prose(readFileSync(join(root, doc), 'utf8'))) {
      for (const m of line.matchAll(/`([\w.-]+\.(?:ts|tsx|mjs|md|sh))`/g))
        if (!names.has(m[1]!)) missing.push(`${doc}:${n} ${m[1]}`);
    }
  }
  t.same(missing, [], 'no stale file name');
});
