/**
 * Issue #19 reproductions: configuration bodies that answered 500 to any token holder (YAML alias
 * tricks, nesting thousands of levels deep) answer a coded 400 with problems, and store nothing; so does a
 * JSON body repeating a key, which `JSON.parse` would have stored with its first value dropped.
 */
import t from 'tap';
import { company, type ConfigNode, json, startConfigNode } from './fixtures/config-node.js';
import { nested } from './fixtures/earlier-release.js';

const deepJson = (levels: number): string =>
  `{"name": "Acme", "extensions": {"e": ${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}}`;

function billionLaughs(): string {
  const rows = ['name: Acme', 'extensions:', '  a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (const [name, prev] of [
    ['b', 'a'],
    ['c', 'b'],
    ['d', 'c'],
  ] as const)
    rows.push(`  ${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
  return rows.join('\n');
}

/** Each reproduction: a body, its media type, and the problem kind it is refused with. */
const reproductions: ReadonlyArray<{ name: string; body: string; yaml: boolean; kind: string }> = [
  { name: 'undefined alias', body: 'name: *nope\n', yaml: true, kind: 'invalid' },
  { name: 'self-merging anchor', body: 'name: Acme\nextensions:\n  e: &x\n    <<: *x\n', yaml: true, kind: 'invalid' },
  {
    name: '101 aliases',
    body: `name: Acme\nextensions:\n  a: &a x\n  b: [${Array(101).fill('*a').join(', ')}]\n`,
    yaml: true,
    kind: 'out_of_range',
  },
  { name: 'alias expansion bomb', body: billionLaughs(), yaml: true, kind: 'out_of_range' },
  { name: 'YAML nested 5,000 levels', body: `name: Acme\ne: ${'['.repeat(5000)}${']'.repeat(5000)}`, yaml: true, kind: 'out_of_range' },
  { name: 'JSON nested 5,000 levels', body: deepJson(5000), yaml: false, kind: 'out_of_range' },
  { name: 'JSON nested 1,700 levels', body: deepJson(1700), yaml: false, kind: 'out_of_range' },
  { name: 'JSON key repeated (the first value lost)', body: '{"name": "Acme", "name": "Other"}', yaml: false, kind: 'invalid' },
]; // prettier-ignore

/** Every config write route that takes a document body, with the code an unreadable body answers. */
const routes: ReadonlyArray<{ method: string; path: string; code: string }> = [
  { method: 'PUT', path: '/config', code: 'invalid_body' },
  { method: 'PUT', path: '/config?dry_run=true', code: 'invalid_body' },
  { method: 'PATCH', path: '/config', code: 'invalid_patch' },
  { method: 'PATCH', path: '/config?dry_run=true', code: 'invalid_patch' },
  { method: 'PUT', path: '/config/roles/bo-agent', code: 'invalid_body' },
  { method: 'PUT', path: '/config/units/Platform?dry_run=true', code: 'invalid_body' },
  { method: 'PUT', path: '/config/llm-providers/main', code: 'invalid_body' },
  { method: 'PUT', path: '/config/mcp-servers/docs', code: 'invalid_body' },
];

function send(node: ConfigNode, method: string, path: string, body: string, yaml: boolean) {
  return node.call(method, path, {
    body,
    headers: { 'content-type': yaml ? 'application/yaml' : 'application/json', 'x-summary': 'hostile' },
  });
}

async function revisionCount(node: ConfigNode): Promise<number> {
  return (await json(await node.call('GET', '/config/revisions')))['total'] as number;
}

t.test('every reproduction answers a coded 400 with problems on every config write route', async (t) => {
  const node = await startConfigNode(t);
  t.equal(
    (await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } })).status,
    201,
  );
  for (const repro of reproductions) {
    for (const route of routes) {
      // PATCH takes JSON merge patches only (415 otherwise), so it meets the JSON reproductions.
      if (route.method === 'PATCH' && repro.yaml) continue;
      const res = await send(node, route.method, route.path, repro.body, repro.yaml);
      const what = `${repro.name}: ${route.method} ${route.path}`;
      t.equal(res.status, 400, what);
      const body = await json(res);
      t.equal(body['error'], route.code, what);
      t.match(body['problems'], [{ kind: repro.kind, path: String, message: String }], what);
    }
  }
  t.equal(await revisionCount(node), 1, 'nothing was stored');
  t.equal((await node.call('GET', '/config?format=yaml')).status, 200, 'the active document still reads');
});

t.test('a document nested exactly 64 levels is stored and reads back in JSON and YAML', async (t) => {
  const node = await startConfigNode(t);
  // the root and `extensions` are two levels; the 62 maps under `e` make 64
  const doc = { ...company(), extensions: { e: nested(62) } };
  const put = await node.call('PUT', '/config', { body: doc, headers: { 'x-summary': 'at the limit' } });
  t.equal(put.status, 201);
  t.equal((await node.call('GET', '/config')).status, 200);
  const yaml = await node.call('GET', '/config?format=yaml');
  t.equal(yaml.status, 200);
  t.match(await yaml.text(), /name: Acme/);
  const over = { ...company(), extensions: { e: nested(63) } };
  const refused = await node.call('PUT', '/config', { body: over, headers: { 'x-summary': 'one more' } });
  t.equal(refused.status, 400);
  t.match(await json(refused), {
    error: 'invalid_body',
    problems: [{ kind: 'out_of_range', message: 'nested deeper than 64 levels of maps and lists' }],
  });
});

t.test('an entity within the limit that lands past it once spliced is a validation_error', async (t) => {
  const node = await startConfigNode(t);
  t.equal(
    (await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } })).status,
    201,
  );
  // bo-agent sits at units[0].children[0].roles[0]: seven levels down, so 60 more cross 64.
  const seat = { name: 'Bo Agent', sandbox: { env: nested(60) } };
  for (const path of ['/config/roles/bo-agent', '/config/roles/bo-agent?dry_run=true']) {
    const res = await node.call('PUT', path, { body: seat, headers: { 'x-summary': 'deep seat' } });
    t.equal(res.status, 400, path);
    const body = await json(res);
    t.equal(body['error'], 'validation_error', path);
    t.match(body['problems'], [
      { kind: 'out_of_range', path: /^units\[0\]\.children\[0\]\.roles\[0\]\.sandbox\.env(\.a)+$/ },
    ]);
  }
  t.equal(await revisionCount(node), 1);
});
