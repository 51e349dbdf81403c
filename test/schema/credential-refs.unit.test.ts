import t from 'tap';
import { credentialPoolFromDocument, keyRef } from '../../schema/index.js';

t.test('a key is named by its whole ${VAR}, else by its position; never by its value', async (t) => {
  t.equal(keyRef('${OPENAI_KEY}', 0), 'OPENAI_KEY');
  t.equal(keyRef(' ${SPACED} ', 2), 'SPACED');
  t.equal(keyRef('Bearer ${PART}', 1), 'api_keys[1]', 'a reference inside a longer value is not a name');
  t.equal(keyRef('sk-abc', 3), 'api_keys[3]');
  t.equal(keyRef(42, 0), 'api_keys[0]');
});

t.test('an entry without api_keys reads its provider fallback variable', async (t) => {
  const pool = credentialPoolFromDocument({
    providers: {
      llm: {
        a: { type: 'openai-compatible', model: 'm', base_url: 'http://x' },
        b: { type: 'anthropic', model: 'n', api_keys: [] },
        c: { type: 'future-kind', model: 'o' },
      },
    },
  });
  t.same(
    pool['a']!.keys.map((k) => k.ref),
    ['OPENAI_API_KEY'],
  );
  t.same(
    pool['b']!.keys.map((k) => k.ref),
    ['ANTHROPIC_API_KEY'],
  );
  t.same(pool['c']!.keys, []);
});

t.test('a document without providers, or none at all, gives an empty pool', async (t) => {
  t.same(credentialPoolFromDocument(null), {});
  t.same(credentialPoolFromDocument({ name: 'x' }), {});
  t.same(credentialPoolFromDocument({ providers: { llm: { bad: 'x' } } }), {});
});
