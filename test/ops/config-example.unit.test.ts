/**
 * `ops/config.example.yaml` is the Tier A reference an operator copies: it must pass the real validator, show
 * every key the schema knows (optional ones commented, at their default), and the README's configuration
 * table must name every key too. All three are read off the zod schema, so a key added there without the
 * example or the README fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { keysOfSchemaAt } from '../../schema/company/known-keys.js';
import { parseTierA, type TierAResult } from '../../schema/index.js';
import { TierAFile } from '../../schema/tier-a.js';
import { root } from '../harness/child.js';

type Path = ReadonlyArray<string | number>;

const example = readFileSync(join(root, 'ops', 'config.example.yaml'), 'utf8');
const env = {
  SVC_TOKEN: 'example-token-0123456789',
  SVC_NATS_TOKEN: 'nats',
  SVC_KEY_K1: Buffer.alloc(32, 7).toString('base64'),
};
const opts = { env, cwd: '/srv/svc' };

/**
 * The example with every commented key written: `# key: value` and `#   - id: x` lines lose their `# `, so
 * a commented key keeps the indentation it would have. Prose comments (`# Listed by ...`) stay comments.
 */
function uncommented(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const m = /^(\s*)# (\s*(?:- )?[a-z_]+:(?:\s.*)?)$/.exec(line);
      return m ? `${m[1]}${m[2]}` : line;
    })
    .join('\n');
}

/** Every key path the Tier A schema knows; an array's elements are walked at index 0. */
function schemaPaths(at: Path = []): Path[] {
  const keys = keysOfSchemaAt(TierAFile, at);
  if (keys === 'any') return [];
  const paths: Path[] = [];
  for (const key of keys) {
    const path = [...at, key];
    paths.push(path);
    paths.push(...schemaPaths(path));
    if (keysOfSchemaAt(TierAFile, [...path, 0]) !== 'any') paths.push(...schemaPaths([...path, 0]));
  }
  return paths;
}

/** A key that holds a value rather than a map of keys (an array counts as a value). */
function isSetting(path: Path): boolean {
  const keys = keysOfSchemaAt(TierAFile, path);
  return keys === 'any' || keys.size === 0;
}

function valueAt(root: unknown, path: Path): unknown {
  let at = root;
  for (const step of path)
    at = at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[step] : undefined;
  return at;
}

/**
 * The example fully written: its commented `url` and `auth_token` are read only by `type: jetstream` (a
 * url under another type is refused), so the written example names that engine.
 */
const written = uncommented(example).replace(/^(\s+type:) memory\b/m, '$1 jetstream');

const show = (result: TierAResult): string => (result.ok ? 'valid' : JSON.stringify(result.problems));
const dotted = (path: Path): string => path.join('.');

t.test('the example as shipped passes the real Tier A validator', async (t) => {
  const result = parseTierA(example, opts);
  t.ok(result.ok, show(result));
});

t.test('the example with its commented keys written still passes the real validator', async (t) => {
  const result = parseTierA(written, opts);
  t.ok(result.ok, show(result));
});

t.test('every key the Tier A schema knows appears in the example, commented or not', async (t) => {
  const full = parseTierA(written, opts);
  if (!full.ok) {
    t.fail(show(full));
    return;
  }
  const raw = parse(written) as unknown;
  const paths = schemaPaths();
  t.ok(paths.length > 20, `the schema walk found ${paths.length} keys`);
  const missing = paths.filter((path) => valueAt(raw, path) === undefined).map(dotted);
  t.same(missing, [], 'no schema key is missing from ops/config.example.yaml');
});

t.test('a commented key shows its default: the written example reads as the defaults do', async (t) => {
  const defaults = parseTierA('{}', opts);
  const full = parseTierA(written, opts);
  if (!defaults.ok || !full.ok) {
    t.fail(`${show(defaults)} ${show(full)}`);
    return;
  }
  for (const path of schemaPaths().filter(isSetting)) {
    // The one key the written example changes from its default (see `written`).
    if (path.includes(0) || dotted(path) === 'providers.queue.type') continue;
    const fallback = valueAt(defaults.config, path);
    // Keys without a default show an example value instead.
    if (fallback === undefined || (Array.isArray(fallback) && fallback.length === 0)) continue;
    t.same(valueAt(full.config, path), fallback, `${dotted(path)} shows its default`);
  }
});

t.test('the README configuration table names every Tier A setting', async (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = /^## Configuration\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const table = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split(/(?<!\\)\|/)[1] ?? '')
    .join(' ');
  const named = new Set([...table.matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]));
  const settings = schemaPaths()
    .filter((path) => !path.includes(0) && isSetting(path))
    .map(dotted);
  t.same(
    settings.filter((key) => !named.has(key)),
    [],
    'every setting has a row',
  );
  t.same(
    [...named].filter((key) => !settings.includes(key!)),
    [],
    'every row names a setting the schema knows',
  );
});
