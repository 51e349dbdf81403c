// Company rules for integrations: exclusive pairs and the fields each enabled block needs.
import t from 'tap';
import { baseCompany, summary, write } from '../fixtures/company/documents.js';

t.test('wiki and tracker-b are mutually exclusive while both are enabled', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = {
    wiki: { url: 'https://wiki.example' },
    tracker_b: { url: 'https://tb.example', workspace: 'acme' },
  };
  t.same(summary(write(doc)), ['integrations.tracker_b conflict']);
  doc['integrations']['tracker_b']['enabled'] = false;
  t.ok(write(doc).valid);
});

t.test('tracker-a and wiki take url or cloud_id, not both and not neither', async (t) => {
  for (const block of ['tracker_a', 'wiki']) {
    const doc = baseCompany();
    doc['integrations'] = { [block]: { url: 'https://x.example', cloud_id: 'c1' } };
    t.same(summary(write(doc)), [`integrations.${block}.cloud_id conflict`]);
    doc['integrations'] = { [block]: { token: '${T}' } };
    t.same(summary(write(doc)), [`integrations.${block}.url missing`]);
    doc['integrations'] = { [block]: { cloud_id: 'c1', email: 'bot@example.com', token: '${T}' } };
    t.ok(write(doc).valid);
  }
});

t.test('codehost-a needs its webhook secret', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = { codehost_a: {} };
  t.same(summary(write(doc)), ['integrations.codehost_a.webhook_secret missing']);
});

t.test('an enabled codehost-b or tracker-b block needs its url', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = { codehost_b: { token: '${CB}' }, tracker_b: { enabled: false } };
  t.same(summary(write(doc)), ['integrations.codehost_b.url missing']);
});

t.test('an unknown codehost-b access level is a dangling reference warning', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = {
    codehost_b: { url: 'https://cb.example', provisioning: { access_level: 'developer' } },
  };
  t.same(write(doc).warnings, []);
  doc['integrations']['codehost_b']['provisioning']['access_level'] = 30;
  t.same(write(doc).warnings, []);
  doc['integrations']['codehost_b']['provisioning']['access_level'] = 'superuser';
  const result = write(doc);
  t.ok(result.valid);
  t.match(result.warnings, [
    {
      kind: 'dangling_reference',
      ref: 'codehost_b_access_level',
      path: 'integrations.codehost_b.provisioning.access_level',
      to: 'superuser',
    },
  ]);
});

t.test('an integration url carrying a login is refused without quoting it', async (t) => {
  // Their clients call with fetch, which refuses such a URL on every call; reads would show the password.
  const doc = baseCompany();
  doc['integrations'] = {
    tracker_a: { url: 'https://bot:hunter2@tracker.example', token: '${T}' },
    codehost_b: { url: 'https://bot@cb.example' },
    tracker_b: { url: 'https://tb.example', workspace: 'acme' },
  };
  const result = write(doc);
  t.same(summary(result).sort(), [
    'integrations.codehost_b.url invalid',
    'integrations.tracker_a.url invalid',
  ]);
  t.notMatch(JSON.stringify(result.problems), /hunter2/, 'the password is never quoted');
  doc['integrations'] = { wiki: { url: 'https://u:p@wiki.example' }, codehost_a: { webhook_secret: '${S}' } };
  t.same(summary(write(doc)), ['integrations.wiki.url invalid']);
  doc['integrations'] = { wiki: { url: '${WIKI_URL}' } };
  t.ok(write(doc).valid, 'a reference is judged once resolved');
});
