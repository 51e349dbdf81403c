// An `unresolved_reference` warning tells the operator how to provide the variable on the node that
// answered: `svc secrets put` only where that node has a keyring (without one, PUT /secrets answers 503
// no_keyring), the environment everywhere.
import t from 'tap';
import { company, startConfigNode } from './fixtures/config-node.js';

type Json = Record<string, unknown>;

const keyring = `secrets: {active_key_id: k1, keys: [{id: k1, material: "${Buffer.alloc(32, 1).toString('base64')}"}]}`;

function withMissingKey(): Json {
  const doc = company();
  (doc['providers'] as { llm: { main: { api_keys: string[] } } }).llm.main.api_keys = ['${MISSING_KEY}'];
  return doc;
}

async function unresolvedMessage(tierA: string | undefined, t: Parameters<typeof startConfigNode>[0]) {
  const node = await startConfigNode(t, {
    resolve: () => undefined,
    ...(tierA !== undefined ? { tierA } : {}),
  });
  const res = await node.call('PUT', '/config?dry_run=true', { body: withMissingKey() });
  t.equal(res.status, 200);
  const warnings = ((await res.json()) as Json)['warnings'] as Json[];
  const found = warnings.find((w) => w['kind'] === 'unresolved_reference' && w['to'] === 'MISSING_KEY');
  t.ok(found, JSON.stringify(warnings));
  return String(found?.['message']);
}

t.test(
  'without a keyring an unresolved reference is advised to the environment, not to svc secrets put',
  async (t) => {
    const message = await unresolvedMessage(undefined, t);
    t.notMatch(message, /svc secrets put/, 'no advice the node would refuse 503 no_keyring');
    t.match(message, /\$\{MISSING_KEY\} resolves to nothing/);
    t.match(message, /environment/);
    t.match(message, /secrets\.keys/, 'names what a secret store needs');
  },
);

t.test(
  'with a keyring an unresolved reference is advised to svc secrets put or the environment',
  async (t) => {
    const message = await unresolvedMessage(keyring, t);
    t.match(message, /svc secrets put MISSING_KEY/);
    t.match(message, /environment/);
  },
);
