import t from 'tap';
import { chainResolvers, listRefs, substituteDeep, substituteRefs } from '../../schema/index.js';

const env = { HOME_URL: 'https://example.test', TOKEN: 'from-env' };
const fromEnv = (name: string) => env[name as keyof typeof env];

t.test('only braced ${NAME} references are substituted; bare $NAME and shell forms stay', async (t) => {
  t.equal(
    substituteRefs('${HOME_URL}/x $HOME_URL $(whoami) ${1BAD} ${}', fromEnv),
    'https://example.test/x $HOME_URL $(whoami) ${1BAD} ${}',
  );
});

t.test('an unanswered reference resolves to the empty string', async (t) => {
  t.equal(substituteRefs('a${MISSING}b', fromEnv), 'ab');
});

t.test('the secret store answers before the environment, the environment after it', async (t) => {
  const secrets = (name: string) => (name === 'TOKEN' ? 'from-secrets' : undefined);
  const resolve = chainResolvers(secrets, fromEnv);
  t.equal(substituteRefs('${TOKEN} ${HOME_URL}', resolve), 'from-secrets https://example.test');
});

t.test('references are substituted in every string of a document and listed once each', async (t) => {
  t.same(substituteDeep({ a: ['${TOKEN}', 1, null], b: { c: '${TOKEN}${TOKEN}' } }, fromEnv), {
    a: ['from-env', 1, null],
    b: { c: 'from-envfrom-env' },
  });
  t.same(listRefs('${A} ${B} ${A}'), ['A', 'B']);
});
