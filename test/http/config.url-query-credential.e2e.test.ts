/**
 * A URL carrying a credential in its query (`?private_token=…`, `?access_token=…`, `?api_key=…`): reads
 * show its value as `***` (JSON, YAML, entity, revision, diff, query), a full PUT of the read keeps it, a
 * new value replaces it, and a write bringing one anew is refused (A10) while a stored revision that holds
 * one still applies, reloads, reverts and boots (ratcheting, ops/config.md). No log line carries it.
 */
import t from 'tap';
import { activeRevision, readRevision } from '../../projections/index.js';
import {
  company,
  type ConfigNode,
  firstRevision,
  json,
  type Json,
  startConfigNode,
} from './fixtures/config-node.js';
import { activateShown, bootOnEarlierRevision } from './fixtures/earlier-stored.js';

const codehostUrl = (host = 'git.example'): string =>
  `https://${host}?private_token=glpat-c4n4ry-one&per_page=50`;
const mcpUrl = (host = 'mcp.example'): string => `https://${host}/a?ACCESS_TOKEN=c4n4ry-two`;

/** The sample company with a code-host site URL and a remote tool server, each with a query credential. */
function queryCompany(codehost = codehostUrl(), mcp = mcpUrl()): Json {
  const doc = company();
  return {
    ...doc,
    integrations: { codehost_b: { url: codehost, token: '${CODEHOST_TOKEN}', group: 'acme' } },
    mcp_servers: [...(doc['mcp_servers'] as Json[]), { name: 'remote', url: mcp }],
  };
}

const leaks = /c4n4ry/;

const storedUrls = (node: ConfigNode): [unknown, unknown] => {
  const kept = activeRevision(node.configuration.view.state)!.payload as Json;
  return [
    ((kept['integrations'] as Json)['codehost_b'] as Json)['url'],
    (kept['mcp_servers'] as Json[])[1]?.['url'],
  ];
};

t.test(
  'a stored URL with a query credential applies, reads it as ***, keeps it through a round trip and blocks no other write',
  async (t) => {
    const node = await startConfigNode(t);
    const first = await firstRevision(node);
    const stored = await activateShown(node, queryCompany());
    await node.configuration.applyActive();
    t.match(node.node.view(), { posture: 'serve', appliedEpoch: 2 }, 'the node runs it');

    const read = await json(await node.call('GET', '/config'));
    t.equal(
      ((read['integrations'] as Json)['codehost_b'] as Json)['url'],
      'https://git.example?private_token=***&per_page=50',
    );
    t.equal((read['mcp_servers'] as Json[])[1]?.['url'], 'https://mcp.example/a?ACCESS_TOKEN=***');
    for (const path of [
      '/config',
      '/config?format=yaml',
      `/config/revisions/${stored}`,
      `/config/revisions/${stored}/diff?against=${first}`,
      '/config/mcp-servers/remote',
      '/query/config',
    ]) {
      const res = await node.call('GET', path);
      t.equal(res.status, 200, path);
      const text = await res.text();
      t.notMatch(text, leaks, `${path} shows no credential`);
      t.match(text, /private_token=\*\*\*|ACCESS_TOKEN=\*\*\*/, `${path} shows the URL`);
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
      ['integrations.codehost_b.url', 'mcp_servers[1].url'],
    );
    t.notMatch(JSON.stringify(warnings), leaks);

    // The redacted read sent back whole keeps the stored credentials.
    const put = await node.call('PUT', '/config', { body: read, headers: { 'x-summary': 'round trip' } });
    t.equal(put.status, 201);
    t.notMatch(await put.text(), leaks, 'the write answer quotes no credential');
    t.same(storedUrls(node), [codehostUrl(), mcpUrl()]);

    // The tool server read as an entity and sent back keeps its URL too.
    const server = await json(await node.call('GET', '/config/mcp-servers/remote'));
    const again = await node.call('PUT', '/config/mcp-servers/remote', {
      body: { ...server, shared: true },
      headers: { 'x-summary': 'entity round trip' },
    });
    t.equal(again.status, 201);
    t.same(storedUrls(node), [codehostUrl(), mcpUrl()]);

    const reload = await node.call('POST', '/config/reload');
    t.equal(reload.status, 201, 'a reload stores it again');
    t.match((await json(reload))['warnings'], [{ kind: 'admission' }]);

    // A credential the write brings is refused at its own path, with the way to write it instead.
    const fresh = await node.call('PUT', '/config/mcp-servers/other', {
      body: { name: 'other', url: 'https://other.example/mcp?api_key=c4n4ry-three' },
      headers: { 'x-summary': 'new', 'if-none-match': '*' },
    });
    t.equal(fresh.status, 400);
    const refused = await json(fresh);
    t.match(refused, {
      error: 'validation_error',
      problems: [{ path: 'mcp_servers[2].url', kind: 'invalid', message: /api_key=.*\$\{VAR\}/ }],
    });
    t.notMatch(JSON.stringify(refused), leaks);
    // A new value at the stored path is a new problem too.
    const changed = queryCompany(
      'https://git.example?private_token=glpat-c4n4ry-new&per_page=50',
      'https://mcp.example/a?ACCESS_TOKEN=***',
    );
    const edit = await node.call('PUT', '/config', { body: changed, headers: { 'x-summary': 'edit' } });
    t.equal(edit.status, 400);
    t.match(await json(edit), { problems: [{ path: 'integrations.codehost_b.url' }] });
    // Written as a reference it is taken, and reads show the reference.
    const referenced = queryCompany(
      'https://git.example?private_token=${CODEHOST_TOKEN}&per_page=50',
      'https://mcp.example/a?ACCESS_TOKEN=***',
    );
    const ok = await node.call('PUT', '/config', { body: referenced, headers: { 'x-summary': 'ref' } });
    t.equal(ok.status, 201);
    t.match(
      await (await node.call('GET', '/config?format=yaml')).text(),
      /private_token=\$\{CODEHOST_TOKEN\}&per_page=50/,
    );
    t.same(storedUrls(node), ['https://git.example?private_token=${CODEHOST_TOKEN}&per_page=50', mcpUrl()]);

    // Revert to the stored one loads it, with the warning.
    const revert = await node.call('POST', `/config/revisions/${stored}/revert`);
    t.equal(revert.status, 201);
    const reverting = await json(revert);
    t.match(reverting['warnings'], [{ kind: 'admission' }]);
    const reverted = (await readRevision(node.configuration.view.state, reverting['revision_id'] as string))!
      .payload as Json;
    t.equal(((reverted['integrations'] as Json)['codehost_b'] as Json)['url'], codehostUrl());
  },
);

t.test(
  'across a restart a stored URL with a query credential boots, applies and reads masked, in no log',
  async (t) => {
    const doc = queryCompany(codehostUrl('127.0.0.1:9'), mcpUrl('127.0.0.1:9'));
    const after = await bootOnEarlierRevision(t, doc);
    await after.run.waitForLog((l) => l.msg === 'config applied');
    const health = await json(await after.call('GET', '/health'));
    t.match(health, { configured: true, applied_epoch: 2 }, 'the node applied it');
    const read = await after.call('GET', '/config');
    t.equal(read.status, 200);
    const text = await read.text();
    t.match(text, /127\.0\.0\.1:9\?private_token=\*\*\*/);
    t.notMatch(text, leaks);
    const entity = await after.call('PUT', '/config/roles/chief-agent', {
      body: JSON.stringify({ name: 'Chief Agent', goal: 'Run it well.' }),
      headers: { 'content-type': 'application/json', 'x-summary': 'another entity' },
    });
    t.equal(entity.status, 201);
    t.equal(await after.stop(), 0);
    t.notMatch(after.run.stdout() + after.run.stderr(), leaks, 'no log line carries the credential');
  },
);
