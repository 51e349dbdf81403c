/**
 * A22: an integration site url or a provider base_url naming no host (`http:///x`, read as host `x`) refuses a
 * new write, and A19 holds a seat's sandbox env; a revision an earlier release stored with one still loads, with
 * an `admission` warning.
 */
import t from 'tap';
import {
  baseCompany,
  refusedNewStoredLoads,
  summary,
  write,
  type Doc,
} from '../fixtures/company/documents.js';
import { validateCompany } from '../../schema/company/index.js';

/** A company whose every fetched URL outside the tool servers is `url`. */
function withUrls(url: string, knowledge: 'wiki' | 'tracker_b'): Doc {
  const doc = baseCompany();
  doc['integrations'] = {
    tracker_a: { url, token: '${TA_TOKEN}' },
    codehost_b: { url, token: '${CB_TOKEN}' },
    ...(knowledge === 'wiki'
      ? { wiki: { url, token: '${WIKI_TOKEN}' } }
      : { tracker_b: { url, token: '${TB_TOKEN}', workspace: 'acme' } }),
  };
  doc['providers']['llm']['local'] = { type: 'openai-compatible', model: 'm', base_url: url };
  doc['providers']['embeddings'] = { type: 'openai-compatible', model: 'e', base_url: url };
  return doc;
}

t.test('A22: an integration url or a provider base_url naming no host', async (t) => {
  for (const url of ['http:///api', 'https:///${API_PATH}', 'HTTP:////api']) {
    for (const knowledge of ['wiki', 'tracker_b'] as const) {
      refusedNewStoredLoads(t, withUrls(url, knowledge), [
        'integrations.tracker_a.url invalid',
        ...(knowledge === 'wiki'
          ? ['integrations.wiki.url invalid', 'integrations.codehost_b.url invalid']
          : ['integrations.codehost_b.url invalid', 'integrations.tracker_b.url invalid']),
        'providers.llm.local.base_url invalid',
        'providers.embeddings.base_url invalid',
      ]);
      t.match(write(withUrls(url, knowledge)).problems[0]?.message, /no host/);
    }
  }
  for (const url of [
    'http://site.example/api',
    'http://${SITE_HOST}/api',
    '${SITE_URL}',
    'http://127.0.0.1:9/',
  ]) {
    t.ok(write(withUrls(url, 'wiki')).valid, url);
    t.ok(write(withUrls(url, 'tracker_b')).valid, url);
  }
});

t.test('A22 ratchets by value: a stored no-host url may stay while the rest is edited', async (t) => {
  const stored = withUrls('http:///api', 'wiki');
  const active = { document: stored, problems: write(stored).problems };
  const edit = withUrls('http:///api', 'wiki');
  edit['name'] = 'Acme Two';
  t.ok(validateCompany(edit, { mode: 'write', active }).valid, 'an unrelated edit keeps the stored urls');
  edit['integrations']['wiki']['url'] = 'http:///other';
  t.same(summary(validateCompany(edit, { mode: 'write', active })), ['integrations.wiki.url invalid']);
});

/** The seat `Bo Agent` with a sandbox whose env is `env`. */
function withSandboxEnv(env: Record<string, string>): Doc {
  const doc = baseCompany();
  doc['units'][0]['children'][0]['roles'][0]['sandbox'] = { default_coding_agent: 'claude', env };
  return doc;
}

t.test('A19 holds a seat’s sandbox env: names empty or holding = or NUL, a NUL in a value', async (t) => {
  const at = 'units[0].children[0].roles[0].sandbox.env';
  for (const name of ['', 'A=B', 'A\0B']) {
    const doc = withSandboxEnv({ [name]: 'v', OK: 'w' });
    refusedNewStoredLoads(t, doc, [`${at} invalid`]);
    t.match(write(doc).problems[0]?.message, /env name/);
  }
  const doc = withSandboxEnv({ TOKEN: 'sekrit\0tail', OK: 'v' });
  refusedNewStoredLoads(t, doc, [`${at}.TOKEN invalid`]);
  t.notMatch(JSON.stringify(write(doc).problems), /sekrit|tail/, 'the value is never quoted');
  t.ok(
    write(withSandboxEnv({ TOKEN: '${SANDBOX_TOKEN}', PATH_EXTRA: 'a=b' })).valid,
    'an = in a value is fine',
  );
  // Held by name, as a tool server's env: other entries may change while a stored bad name stays.
  const stored = withSandboxEnv({ 'A=B': 'v', OK: 'w' });
  const active = { document: stored, problems: write(stored).problems };
  t.ok(validateCompany(withSandboxEnv({ 'A=B': 'v', OK: 'x', NEW: 'n' }), { mode: 'write', active }).valid);
  t.same(summary(validateCompany(withSandboxEnv({ 'A=B': 'v', 'C=D': 'w' }), { mode: 'write', active })), [
    `${at} invalid`,
  ]);
});
