import t from 'tap';
import { closestName, editDistance } from '../../schema/did-you-mean.js';
import { parseTierA } from '../../schema/index.js';
import { baseCompany, write } from '../fixtures/company/documents.js';

t.test('edit distance counts an adjacent swap as one edit', async (t) => {
  t.equal(editDistance('prot', 'port'), 1);
  t.equal(editDistance('scedules', 'schedules'), 1);
  t.equal(editDistance('', 'abc'), 3);
  t.equal(editDistance('kitten', 'sitting'), 3);
});

t.test('a suggestion is offered only when it is close enough to be meant', async (t) => {
  t.equal(closestName('scedules', ['name', 'schedules', 'scope']), 'schedules');
  t.equal(closestName('Timezone', ['timezone', 'task']), 'timezone', 'case alone is a typo');
  t.equal(closestName('surprise', ['host', 'port', 'public', 'auth']), null);
  t.equal(closestName('x', ['y', 'z']), 'y', 'one edit is always allowed; the first nearest wins');
});

t.test('an unknown company field names the field it most likely meant', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['scedules'] = [];
  doc['misson'] = 'typo';
  doc['roles'][0]['colour'] = 'blue';
  const problems = write(doc).problems.filter((p) => p.kind === 'unknown_field');
  t.same(problems.map((p) => [p.path, p.message]).sort(), [
    ['misson', 'unknown field `misson`; did you mean `mission`?'],
    ['roles[0].colour', 'unknown field `colour`'],
    ['roles[0].scedules', 'unknown field `scedules`; did you mean `schedules`?'],
  ]);
});

t.test('an unknown Tier A key names the key it most likely meant, at any depth', async (t) => {
  const result = parseTierA('api: {prot: 8080, auth: {allow_anonymus_read: false}}\nstrem: {}\n', {
    env: {},
    cwd: '/',
  });
  t.notOk(result.ok);
  if (result.ok) return;
  t.same(result.problems.map((p) => `${p.path}: ${p.message}`).sort(), [
    'api.auth.allow_anonymus_read: unknown key; did you mean `allow_anonymous_read`?',
    'api.prot: unknown key; did you mean `port`?',
    'strem: unknown key; did you mean `stream`?',
  ]);
});

t.test('a word or a name longer than any name is compared with nothing, and answers at once', async (t) => {
  const started = performance.now();
  t.equal(closestName('a'.repeat(100_000), ['a'.repeat(99_999)]), null, 'a 100,000-character word');
  t.equal(
    closestName('a'.repeat(100), ['a'.repeat(3_000), 'a'.repeat(99)]),
    'a'.repeat(99),
    'a long candidate is passed over',
  );
  t.equal(closestName('abcd', ['abcdefghij']), null, 'a candidate further in length than the allowed edits');
  const doc = baseCompany();
  doc['units'][0]['name'] = 'u'.repeat(3_000);
  doc['roles'][0]['unit'] = 'v'.repeat(100_000);
  doc['roles'][0]['manages'] = ['w'.repeat(100_000)];
  t.ok(write(doc).warnings.length > 0, 'the dangling references are warned about');
  // The pair alone took about 100 s to compare before: an edit distance is quadratic in its lengths.
  t.ok(performance.now() - started < 5_000, 'within a few seconds');
});
