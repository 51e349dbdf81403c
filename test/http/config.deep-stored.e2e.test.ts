/**
 * Documents an earlier release stored and activated that today's writer refuses.
 *
 * Issue #19: a document nested past the limit. Every read of it answers a coded refusal (never a 5xx),
 * every write that would walk it too, and a full PUT replaces it. Documents between the write limit (64)
 * and the render limit (256) still read.
 *
 * A document holding a value a rule added since refuses (a URL carrying a login): the node still applies
 * and serves it, reads redact the password, and a write is refused only for a problem it brings, not for
 * one the active revision already holds (ratcheting, ops/config.md).
 */
import t from 'tap';
import { activeRevision, readRevision } from '../../projections/index.js';
import { company, firstRevision, json, type Json, startConfigNode } from './fixtures/config-node.js';
import { nested } from './fixtures/earlier-release.js';
import { activateShown, bootOnEarlierRevision } from './fixtures/earlier-stored.js';

/** The sample company with `extra` maps under `extensions.e`: nested 2 + `extra` levels. */
const deepCompany = (extra: number): Json => ({ ...company(), extensions: { e: nested(extra) } });

t.test('every read of a 1,700-level stored document answers 409 unreadable_revision', async (t) => {
  const node = await startConfigNode(t);
  const valid = await firstRevision(node);
  const deep = await activateShown(node, deepCompany(1_700));
  const reads = [
    '/config',
    '/config?format=yaml',
    `/config/revisions/${deep}`,
    `/config/revisions/${valid}/diff`,
    `/config/revisions/${deep}/diff?against=${valid}`,
    '/config/references',
    '/config/roles/chief-agent',
  ];
  for (const path of reads) {
    const res = await node.call('GET', path);
    t.equal(res.status, 409, path);
    t.match(await json(res), { error: 'unreadable_revision', detail: /deeper than 256 levels/ }, path);
  }
  t.equal((await node.call('GET', '/config/revisions')).status, 200, 'metadata carries no payload');
});

t.test('writes that would walk it refuse with a code; a full PUT replaces it', async (t) => {
  const node = await startConfigNode(t);
  await firstRevision(node);
  const deep = await activateShown(node, deepCompany(1_700));
  const patch = await node.call('PATCH', '/config', {
    body: { extensions: null },
    headers: { 'x-summary': 'drop it' },
  });
  t.equal(patch.status, 409);
  t.match(await json(patch), { error: 'unreadable_revision', hint: /PUT \/config/ });
  const entity = await node.call('PUT', '/config/roles/chief-agent', {
    body: { name: 'Chief Agent' },
    headers: { 'x-summary': 'seat' },
  });
  t.equal(entity.status, 409);
  const reload = await node.call('POST', '/config/reload');
  t.equal(reload.status, 400);
  t.match(await json(reload), { error: 'validation_error', problems: [{ kind: 'out_of_range' }] });
  // The stored document's markers were never read, so a full PUT is taken as written.
  const put = await node.call('PUT', '/config', { body: company('Fixed'), headers: { 'x-summary': 'fix' } });
  t.equal(put.status, 201);
  const yaml = await node.call('GET', '/config?format=yaml');
  t.equal(yaml.status, 200);
  t.match(await yaml.text(), /name: Fixed/);
  const revert = await node.call('POST', `/config/revisions/${deep}/revert`, {
    headers: { 'x-summary': 'back' },
  });
  t.equal(revert.status, 400, 'a revert to it is refused, not stored');
  t.match(await json(revert), { error: 'validation_error', problems: [{ kind: 'out_of_range' }] });
});

t.test('a stored document of 256 levels still reads in JSON and YAML; 257 does not', async (t) => {
  const node = await startConfigNode(t);
  const valid = await firstRevision(node);
  const at = await activateShown(node, deepCompany(254));
  t.equal((await node.call('GET', '/config')).status, 200);
  const yaml = await node.call('GET', '/config?format=yaml');
  t.equal(yaml.status, 200);
  t.match(await yaml.text(), /name: Acme/);
  t.equal((await node.call('GET', `/config/revisions/${at}/diff?against=${valid}`)).status, 200);
  t.equal((await node.call('GET', '/config/roles/chief-agent')).status, 200);
  await activateShown(node, deepCompany(255));
  t.equal((await node.call('GET', '/config?format=yaml')).status, 409);
});

t.test('a PATCH can drop the deep part of a document between 64 and 256 levels', async (t) => {
  const node = await startConfigNode(t);
  await firstRevision(node);
  await activateShown(node, deepCompany(100));
  const keeps = await node.call('PATCH', '/config', {
    body: { mission: 'm' },
    headers: { 'x-summary': 's' },
  });
  t.equal(keeps.status, 400, 'a patch that keeps it is refused');
  t.match(await json(keeps), {
    error: 'validation_error',
    problems: [{ kind: 'out_of_range', path: /^extensions\.e(\.a)+$/ }],
  });
  const drops = await node.call('PATCH', '/config', {
    body: { extensions: null },
    headers: { 'x-summary': 'drop the deep extension' },
  });
  t.equal(drops.status, 201);
});

t.test('across a restart the stored deep document still answers 409, until a PUT replaces it', async (t) => {
  // What an earlier release left in the store.
  const after = await bootOnEarlierRevision(t, deepCompany(1_700));
  for (const path of ['/config?format=yaml', '/config']) {
    const res = await after.call('GET', path);
    t.equal(res.status, 409, path);
    t.equal((await json(res))['error'], 'unreadable_revision', path);
  }
  const replace = await after.call('PUT', '/config', {
    body: JSON.stringify(company('Fixed')),
    headers: { 'content-type': 'application/json', 'x-summary': 'replace' },
  });
  t.equal(replace.status, 201);
  t.equal((await after.call('GET', '/config?format=yaml')).status, 200);
  t.equal(await after.stop(), 0);
});

/** The sample company with a wiki site URL and a remote tool server, each carrying a login. */
function loginCompany(): Json {
  const doc = company();
  return {
    ...doc,
    integrations: { wiki: { url: 'https://bot:hunter2@wiki.example', token: '${WIKI_TOKEN}' } },
    mcp_servers: [
      ...(doc['mcp_servers'] as Json[]),
      { name: 'remote', url: 'https://u:s3cret@mcp.example/a' },
    ],
  };
}

const leaks = /hunter2|s3cret/;

t.test(
  'a stored URL carrying a login applies, reads with its password redacted, and blocks no other write',
  async (t) => {
    const node = await startConfigNode(t);
    const first = await firstRevision(node);
    const stored = await activateShown(node, loginCompany());
    await node.configuration.applyActive();
    t.match(node.node.view(), { posture: 'serve', appliedEpoch: 2 }, 'the node runs it');

    const read = await json(await node.call('GET', '/config'));
    t.equal(((read['integrations'] as Json)['wiki'] as Json)['url'], 'https://bot:***@wiki.example');
    for (const path of [
      '/config',
      '/config?format=yaml',
      `/config/revisions/${stored}`,
      `/config/revisions/${stored}/diff?against=${first}`,
      '/config/mcp-servers/remote',
    ]) {
      const res = await node.call('GET', path);
      t.equal(res.status, 200, path);
      const text = await res.text();
      t.notMatch(text, leaks, `${path} shows no password`);
      t.match(text, /bot:\*\*\*@wiki\.example|u:\*\*\*@mcp\.example/, `${path} shows the URL`);
    }

    const entity = await node.call('PUT', '/config/roles/chief-agent', {
      body: { name: 'Chief Agent', goal: 'Run it well.' },
      headers: { 'x-summary': 'another entity' },
    });
    t.equal(entity.status, 201, 'an edit of another entity is not refused for what it did not bring');
    const warnings = (await json(entity))['warnings'] as Json[];
    t.match(
      warnings
        .filter((w) => w['kind'] === 'admission')
        .map((w) => w['path'])
        .sort(),
      ['integrations.wiki.url', 'mcp_servers[1].url'],
    );
    t.notMatch(JSON.stringify(warnings), leaks);

    // The redacted read sent back whole keeps the stored passwords.
    const put = await node.call('PUT', '/config', { body: read, headers: { 'x-summary': 'round trip' } });
    t.equal(put.status, 201);
    const kept = activeRevision(node.configuration.view.state)!.payload as Json;
    t.equal(((kept['integrations'] as Json)['wiki'] as Json)['url'], 'https://bot:hunter2@wiki.example');
    t.equal((kept['mcp_servers'] as Json[])[1]?.['url'], 'https://u:s3cret@mcp.example/a');

    const reload = await node.call('POST', '/config/reload');
    t.equal(reload.status, 201, 'a reload stores it again');
    t.match((await json(reload))['warnings'], [{ kind: 'admission' }]);

    // A login the write brings is refused, at its own path.
    const fresh = await node.call('PUT', '/config/mcp-servers/other', {
      body: { name: 'other', url: 'https://a:b@other.example' },
      headers: { 'x-summary': 'new', 'if-none-match': '*' },
    });
    t.equal(fresh.status, 400);
    t.match(await json(fresh), {
      error: 'validation_error',
      problems: [{ path: 'mcp_servers[2].url', kind: 'invalid' }],
    });
    // Changing the stored URL is a new problem too.
    const changed = loginCompany();
    (changed['integrations'] as Json)['wiki'] = {
      url: 'https://bot:other@wiki.example',
      token: '${WIKI_TOKEN}',
    };
    const edit = await node.call('PUT', '/config', { body: changed, headers: { 'x-summary': 'edit' } });
    t.equal(edit.status, 400);
    t.match(await json(edit), { problems: [{ path: 'integrations.wiki.url' }] });

    // Revert: from a clean revision back to the stored one loads it, with the warning.
    t.equal(
      (await node.call('PUT', '/config', { body: company('Clean'), headers: { 'x-summary': 'clean' } }))
        .status,
      201,
    );
    const revert = await node.call('POST', `/config/revisions/${stored}/revert`);
    t.equal(revert.status, 201);
    const reverting = await json(revert);
    t.match(reverting['warnings'], [{ kind: 'admission' }]);
    const revertedId = reverting['revision_id'] as string;
    const reverted = (await readRevision(node.configuration.view.state, revertedId))!.payload as Json;
    t.equal(((reverted['integrations'] as Json)['wiki'] as Json)['url'], 'https://bot:hunter2@wiki.example');
  },
);

t.test(
  'across a restart a stored URL carrying a login boots, applies and reads redacted, its password in no log',
  async (t) => {
    const doc = loginCompany();
    (doc['integrations'] as Json)['wiki'] = { url: 'http://bot:hunter2@127.0.0.1:9', token: '${WIKI_TOKEN}' };
    (doc['mcp_servers'] as Json[])[1] = { name: 'remote', url: 'http://u:s3cret@127.0.0.1:9/a' };
    const after = await bootOnEarlierRevision(t, doc);
    await after.run.waitForLog((l) => l.msg === 'config applied');
    const health = await json(await after.call('GET', '/health'));
    t.match(health, { configured: true, applied_epoch: 2 }, 'the node applied it');
    const read = await after.call('GET', '/config');
    t.equal(read.status, 200);
    const text = await read.text();
    t.match(text, /bot:\*\*\*@127\.0\.0\.1:9/);
    t.notMatch(text, leaks);
    const entity = await after.call('PUT', '/config/roles/chief-agent', {
      body: JSON.stringify({ name: 'Chief Agent', goal: 'Run it well.' }),
      headers: { 'content-type': 'application/json', 'x-summary': 'another entity' },
    });
    t.equal(entity.status, 201);
    t.equal(await after.stop(), 0);
    t.notMatch(after.run.stdout() + after.run.stderr(), leaks, 'no log line carries the password');
  },
);
