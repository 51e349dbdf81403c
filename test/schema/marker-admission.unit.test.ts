/**
 * A17: a redaction marker outside a secret leaf is an admission rule, so a revision an earlier release stored
 * with one in a free settings map still loads (a warning) and an edit elsewhere is not refused for it.
 */
import t from 'tap';
import { baseCompany, runnable, write } from '../fixtures/company/documents.js';
import { validateCompany } from '../../schema/company/index.js';

const marker = { encrypted: true, key_id: null };

t.test('a marker in a free map refuses a new write, warns on a stored revision, and ratchets', async (t) => {
  const stored = baseCompany();
  stored['extensions'] = { search: { api_token: marker } };
  const refused = write(stored);
  t.same(
    refused.problems.map((p) => [p.path, p.kind]),
    [['extensions.search.api_token', 'shape']],
  );
  const loaded = runnable(stored);
  t.ok(loaded.valid, 'a stored revision holding one still loads');
  t.ok(loaded.warnings.some((w) => w.kind === 'admission' && w.path === 'extensions.search.api_token'));

  const active = { document: stored, problems: refused.problems };
  const edit = { ...stored, name: 'Acme Two' };
  t.ok(validateCompany(edit, { mode: 'write', active }).valid, 'an edit elsewhere keeps it');
  const added = { ...stored, extensions: { search: { api_token: marker, other: marker } } };
  t.same(
    validateCompany(added, { mode: 'write', active }).problems.map((p) => p.path),
    ['extensions.search.other'],
    'a new one is refused',
  );
});
