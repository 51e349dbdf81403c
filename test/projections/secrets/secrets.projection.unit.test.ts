import t from 'tap';
import { applySecretFact, emptySecretsState, listSecrets, secretRecord } from '../../../projections/index.js';

const record = (name: string, keyId = 'k1') => ({
  v: 1,
  name,
  sealed: `enc:v1:${keyId}:AAAA`,
  key_id: keyId,
  updated_at: '2026-01-01T00:00:00.000Z',
  updated_by: 'ops',
  source: 'api',
});

t.test('the newest revision of a name wins, so a late older fact never revives a deleted name', async (t) => {
  const state = emptySecretsState();
  applySecretFact(state, { key: 'A', revision: 3, operation: 'put', value: record('A', 'k2') });
  applySecretFact(state, { key: 'A', revision: 2, operation: 'put', value: record('A', 'k1') });
  t.equal(secretRecord(state, 'A')?.key_id, 'k2');
  applySecretFact(state, { key: 'A', revision: 5, operation: 'delete', value: null });
  applySecretFact(state, { key: 'A', revision: 4, operation: 'put', value: record('A') });
  t.equal(secretRecord(state, 'A'), null);
  t.same(listSecrets(state), []);
});

t.test('listing is by name and carries metadata only', async (t) => {
  const state = emptySecretsState();
  applySecretFact(state, { key: 'ZED', revision: 1, operation: 'put', value: record('ZED') });
  applySecretFact(state, { key: 'ALPHA', revision: 2, operation: 'put', value: record('ALPHA') });
  const rows = listSecrets(state);
  t.same(
    rows.map((r) => r.name),
    ['ALPHA', 'ZED'],
  );
  t.same(Object.keys(rows[0]!).sort(), ['key_id', 'name', 'source', 'updated_at', 'updated_by']);
});

t.test('a malformed value, or one naming another key, reads as absent', async (t) => {
  const state = emptySecretsState();
  applySecretFact(state, { key: 'A', revision: 1, operation: 'put', value: { junk: true } });
  applySecretFact(state, { key: 'B', revision: 2, operation: 'put', value: record('C') });
  t.same(listSecrets(state), []);
});
