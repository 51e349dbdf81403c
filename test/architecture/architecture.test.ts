/**
 * DESIGN.md's structural rules, checked on the source text: eslint's zones cover who may import which folder;
 * these cover what a per-file rule cannot see (cycles through several files, what a machine's siblings import)
 * and the barrels' shape.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { cyclePath, importCycles, readSources, type SourceFile } from './import-graph.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const files = readSources(root);

t.test('the source folders import one another without a cycle', async (t) => {
  const cycles = importCycles(files).map((c) => cyclePath(files, c));
  t.same(cycles, [], 'every import cycle, as one path through it');
});

t.test('the graph reader finds a cycle when one exists', async (t) => {
  const file = (path: string, imports: string[]): [string, SourceFile] => [
    path,
    { path, text: '', specifiers: [], imports },
  ];
  const graph = new Map([
    file('a.ts', ['b.ts']),
    file('b.ts', ['c.ts']),
    file('c.ts', ['a.ts']),
    file('d.ts', ['a.ts']),
  ]);
  t.same(importCycles(graph), [['a.ts', 'b.ts', 'c.ts']]);
  t.equal(cyclePath(graph, ['a.ts', 'b.ts', 'c.ts']), 'a.ts → b.ts → c.ts → a.ts');
  t.same(importCycles(new Map([file('x.ts', ['y.ts']), file('y.ts', [])])), []);
});

t.test('every barrel names what it re-exports (no export *)', async (t) => {
  const wholesale = [...files.values()]
    .filter((f) => f.path.endsWith('index.ts') && /^export \* from /m.test(f.text))
    .map((f) => f.path);
  t.same(wholesale, []);
});

// schema/ is the leaf every folder imports: validation and pure computation, no files, sockets or processes.
const ioModules =
  /^node:(fs|fs\/promises|net|http|https|http2|tls|dgram|dns|child_process|worker_threads|os|process|cluster)$/;

t.test('schema/ does no I/O', async (t) => {
  const offenders = [...files.values()]
    .filter((f) => f.path.startsWith('schema/'))
    .flatMap((f) =>
      f.specifiers.filter((s) => ioModules.test(s) || !isLeafSpecifier(s)).map((s) => `${f.path}: ${s}`),
    );
  t.same(offenders, []);
});

// Hashing is a pure function of its input; keys, nonces, random ids and ciphers are not (they live in bus/).
const hashingOnly = new Set(['createHash']);

t.test('schema/ takes only hashing from node:crypto', async (t) => {
  const offenders = [...files.values()]
    .filter((f) => f.path.startsWith('schema/') && f.specifiers.includes('node:crypto'))
    .flatMap((f) => {
      const named = [...f.text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'node:crypto'/g)];
      const wholesale = /import\s+(\*\s+as\s+\w+|\w+)\s+from\s+'node:crypto'/.test(f.text);
      const names = named.flatMap((m) => (m[2] ?? '').split(',').map((n) => n.trim().split(/\s+as\s+/)[0]!));
      return [
        ...(wholesale ? ['the whole module'] : []),
        ...names.filter((n) => n !== '' && !hashingOnly.has(n.replace(/^type\s+/, ''))),
      ].map((what) => `${f.path}: ${what}`);
    });
  t.same(offenders, []);
});

function isLeafSpecifier(specifier: string): boolean {
  return specifier.startsWith('.')
    ? !/^(\.\.\/)+(bus|actors|projections|http|scripts)\//.test(specifier)
    : true;
}

// A machine's siblings count as part of it: they may import only xstate, zod, schema and other pure siblings.
const pureSpecifier = (from: string, specifier: string): boolean =>
  specifier === 'xstate' ||
  specifier === 'zod' ||
  /^(\.\.\/)+schema\/index\.js$/.test(specifier) ||
  (specifier.startsWith('./') && dirname(from) === dirname(join(dirname(from), specifier)));

t.test('a machine and the siblings it imports do no I/O', async (t) => {
  const impure: string[] = [];
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const file = files.get(path);
    if (file === undefined) return;
    for (const specifier of file.specifiers) {
      if (!pureSpecifier(path, specifier)) impure.push(`${path}: ${specifier}`);
    }
    for (const sibling of file.imports) if (dirname(sibling) === dirname(path)) visit(sibling);
  };
  const machines = [...files.keys()].filter((p) => p.startsWith('actors/') && p.endsWith('.machine.ts'));
  t.ok(machines.length >= 4, 'the actors have machines');
  for (const machine of machines) visit(machine);
  t.same(impure, []);
});

/**
 * Subjects a `.publish(` call names in a file: `Subjects.event(...)`, an `svc.events.` literal, or a const bound
 * to one of those (`const LEDGER = Subjects.event(...)`). A subject computed elsewhere escapes this reading.
 */
function storedEventPublishes(text: string): string[] {
  const bound = [...text.matchAll(/\bconst\s+(\w+)\s*=\s*(?:Subjects\.event\(|['"`]svc\.events\.)/g)].map(
    (m) => m[1]!,
  );
  const subject = new RegExp(
    String.raw`\.publish\(\s*(Subjects\.event\(|['"\x60]svc\.events\.` +
      bound.map((name) => String.raw`|${name}\b`).join('') +
      ')',
    'g',
  );
  return [...text.matchAll(subject)].map((m) => m[1]!);
}

t.test('the publish reader finds an events subject, a literal one and one bound to a const', async (t) => {
  t.same(storedEventPublishes('bus.publish(Subjects.event(record.type), data)'), ['Subjects.event(']);
  t.same(storedEventPublishes("opts.bus\n  .publish('svc.events.made_up', data)"), ["'svc.events."]);
  t.same(storedEventPublishes('const LEDGER = Subjects.event(X);\nbus.publish(LEDGER, data)'), ['LEDGER']);
  t.same(storedEventPublishes('bus.publish(Subjects.spend(kind), data); const L = Subjects.event(X);'), []);
});

// ops/event-types.md: the admission map decides what is stored, so every stored event goes through its check.
t.test('only bus/publish-event.ts publishes on an svc.events subject', async (t) => {
  const offenders = [...files.values()]
    .filter((f) => f.path !== 'bus/publish-event.ts' && storedEventPublishes(f.text).length > 0)
    .map((f) => f.path);
  t.same(offenders, []);
});
