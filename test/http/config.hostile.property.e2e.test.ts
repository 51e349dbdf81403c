/**
 * Issue #19 as a property: generated YAML (anchors, aliases — undefined, self-containing, many —
 * merge keys, flow and block nesting past the limit) and JSON (deep, truncated, brackets in strings)
 * through every config write route never answer a 5xx, and a stored document always reads back.
 */
import fc from 'fast-check';
import t from 'tap';
import { company, startConfigNode, type ConfigNode } from './fixtures/config-node.js';

const anchor = fc.constantFrom('a', 'b', 'c', 'nope');
const alias = anchor.map((name) => `*${name}`);

/** A flow value nested `depth` levels around a scalar or an alias. */
const flowNest = fc
  .tuple(fc.integer({ min: 1, max: 200 }), fc.oneof(fc.constant('1'), alias), fc.boolean())
  .map(([depth, inner, list]) =>
    list
      ? `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`
      : `${'{k: '.repeat(depth)}${inner}${'}'.repeat(depth)}`,
  );

const yamlValue = fc.oneof(
  fc.constant('x'),
  alias,
  flowNest,
  fc.tuple(fc.integer({ min: 1, max: 130 }), alias).map(([n, a]) => `[${Array(n).fill(a).join(', ')}]`),
);

/** One key under `extensions`: maybe anchored, maybe merging an anchor (itself included). */
const yamlEntry = fc.record({ anchor: fc.option(anchor), value: yamlValue, merge: fc.option(anchor) });

const blockNest = fc
  .integer({ min: 1, max: 120 })
  .map(
    (depth) => Array.from({ length: depth }, (_, i) => `${' '.repeat(2 * i + 2)}k${i}:`).join('\n') + ' x',
  );

const yamlBody = fc.oneof(
  fc.array(yamlEntry, { maxLength: 6 }).map((entries) =>
    [
      'name: Acme',
      'extensions:',
      ...entries.map(({ anchor: a, value, merge }, i) => {
        const props = a ? `&${a} ` : '';
        return merge ? `  k${i}: ${props}{<<: *${merge}, v: ${value}}` : `  k${i}: ${props}${value}`;
      }),
    ].join('\n'),
  ),
  blockNest.map((nest) => `name: Acme\nextensions:\n${nest}`),
);

const deepJson = fc
  .tuple(fc.integer({ min: 0, max: 6_000 }), fc.boolean())
  .map(([depth, list]) =>
    list
      ? `{"name": "Acme", "extensions": {"e": ${'['.repeat(depth)}1${']'.repeat(depth)}}}`
      : `{"name": "Acme", "extensions": {"e": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`,
  );

const jsonBody = fc.oneof(
  deepJson,
  fc.tuple(deepJson, fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1))),
  fc.jsonValue({ maxDepth: 4 }).map((e) => JSON.stringify({ name: 'Acme', extensions: { e } })),
  fc.integer({ min: 1, max: 500 }).map((n) => JSON.stringify({ name: `${'['.repeat(n)}"{`, mission: '\\"' })),
);

const routes = [
  ['PUT', '/config?dry_run=true'],
  ['PUT', '/config'],
  ['PATCH', '/config?dry_run=true'],
  ['PUT', '/config/roles/chief-agent?dry_run=true'],
  ['PUT', '/config/mcp-servers/docs?dry_run=true'],
] as const;

/** Sends one body; true when the answer is a success or carries an error code, and is not a 5xx. */
async function coded(node: ConfigNode, route: (typeof routes)[number], body: string, yaml: boolean) {
  const [method, path] = route;
  if (method === 'PATCH' && yaml) return true; // PATCH takes JSON merge patches only
  const res = await node.call(method, path, {
    body,
    headers: { 'content-type': yaml ? 'application/yaml' : 'application/json', 'x-summary': 'fuzz' },
  });
  const answer = (await res.json()) as Record<string, unknown>;
  if (res.status >= 500) return false;
  return res.status < 400 || typeof answer['error'] === 'string';
}

t.test('generated hostile YAML and JSON bodies never answer a 5xx on any config write route', async (t) => {
  const node = await startConfigNode(t);
  t.equal(
    (await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'base' } })).status,
    201,
  );
  const property = (body: fc.Arbitrary<string>, yaml: boolean) =>
    fc.asyncProperty(body, fc.constantFrom(...routes), async (text, route) => {
      if (!(await coded(node, route, text, yaml))) return false;
      // Whatever was stored still reads, in both formats.
      for (const read of ['/config', '/config?format=yaml']) {
        const res = await node.call('GET', read);
        await res.arrayBuffer();
        if (res.status >= 500) return false;
      }
      return true;
    });
  await fc.assert(property(yamlBody, true), { numRuns: 200 });
  await fc.assert(property(jsonBody, false), { numRuns: 200 });
  t.pass('400 generated bodies answered without a 5xx');
});
