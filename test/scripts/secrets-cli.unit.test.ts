import t from 'tap';
import { isSecretName } from '../../schema/index.js';
import { isSecretNameText } from '../../scripts/secrets-cli.js';

t.test('the CLI judges secret names exactly as the schema does', async (t) => {
  const names = [
    'A',
    '_',
    'a1',
    'OPENAI_API_KEY',
    '_LEADING',
    '9BAD',
    '',
    'has-dash',
    'has space',
    'dot.ted',
    'ünicode',
    'X'.repeat(128),
    'X'.repeat(129),
    'A\n',
    '$VAR',
  ];
  for (const name of names)
    t.equal(isSecretNameText(name), isSecretName(name), JSON.stringify(name.slice(0, 20)));
});
