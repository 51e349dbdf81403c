import t from 'tap';
import { fakeSite } from './fixtures/fake-vendors.js';
import { company, KEYRING, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

t.test('disconnect with a stale If-Match is 409 and keeps the block', async (t) => {
  const node = await startSetupNode(t);
  const first = await node.putDocument(company({ integrations: { codehost_a: { webhook_secret: '${X}' } } }));
  const second = await node.putDocument(
    company({ mission: 'm', integrations: { codehost_a: { webhook_secret: '${X}' } } }),
  );
  const stale = await node.call('DELETE', '/setup/integrations/codehost-a', {
    headers: { 'if-match': `"${first}"` },
  });
  t.equal(stale.status, 409);
  t.equal((await json(stale))['error'], 'revision_advanced');
  t.match(await json(await node.call('GET', '/setup/integrations/codehost-a')), { configured: true });
  const ok = await node.call('DELETE', '/setup/integrations/codehost-a', {
    headers: { 'if-match': `"${second}"` },
  });
  t.equal(ok.status, 200);
  t.match(await json(await node.call('GET', '/setup/integrations/codehost-a')), { configured: false });
});

t.test(
  'disconnect compares If-Match strongly: a weak tag of the active revision is 409, a list naming it proceeds',
  async (t) => {
    const node = await startSetupNode(t);
    const id = await node.putDocument(company({ integrations: { codehost_a: { webhook_secret: '${X}' } } }));
    const weak = await node.call('DELETE', '/setup/integrations/codehost-a', {
      headers: { 'if-match': `W/"${id}"` },
    });
    t.equal(weak.status, 409, 'RFC 9110 13.1.1: a weak tag never matches');
    t.equal((await json(weak))['error'], 'revision_advanced');
    t.match(await json(await node.call('GET', '/setup/integrations/codehost-a')), { configured: true });
    const listed = await node.call('DELETE', '/setup/integrations/codehost-a', {
      headers: { 'if-match': `"other", "${id}"` },
    });
    t.equal(listed.status, 200, 'any listed tag may name the active revision');
    t.match(await json(await node.call('GET', '/setup/integrations/codehost-a')), { configured: false });
  },
);

t.test('disconnecting the relay removes the app id; chat removes its marker', async (t) => {
  const node = await startSetupNode(t);
  await node.putDocument(
    company({
      integrations: { relay_app_id: 'app-1', chat: {}, tracker_a: { url: 'https://t.example.test' } },
    }),
  );
  t.match(await json(await node.call('GET', '/setup/integrations/relay')), {
    configured: true,
    satisfied: true,
  });
  const res = await json(await node.call('DELETE', '/setup/integrations/relay'));
  t.match(res, { removed: true, remote: { status: 'succeeded' } });
  const doc = await json(await node.call('GET', '/config'));
  t.same(doc['integrations'], { chat: {}, tracker_a: { url: 'https://t.example.test' } });
  await node.call('DELETE', '/setup/integrations/chat');
  const after = await json(await node.call('GET', '/config'));
  t.same(after['integrations'], { tracker_a: { url: 'https://t.example.test' } });
});

t.test('tracker-a check proves the token against the self-hosted site', async (t) => {
  const site = await fakeSite(t, 'ta-token-0123456789', '/rest/api/2/myself');
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const inputs = await node.call('POST', '/setup/integrations/tracker-a/inputs', {
    body: { values: { url: site.url, token: 'ta-token-0123456789', relay_app_id: 'app-9' } },
  });
  t.equal(inputs.status, 201);
  const run = await json(await node.call('POST', '/setup/integrations/tracker-a/check'));
  t.match(run, { status: 'succeeded', steps: [{ name: 'credentials', outcome: 'ok' }] });
  t.equal(site.seen.length, 1);
  t.equal(site.seen[0]!.headers['authorization'], 'Bearer ta-token-0123456789');
  await node.call('POST', '/setup/integrations/tracker-a/inputs', {
    body: { values: { token: 'wrong-token' } },
  });
  const refused = await json(await node.call('POST', '/setup/integrations/tracker-a/check'));
  t.match(refused, { status: 'failed', reason: /credential was refused/ });
});

t.test('disconnecting the wiki removes its cloud webhook token, which only the store holds', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const set = await node.call('POST', '/setup/integrations/wiki/inputs', {
    body: { values: { cloud_id: 'site-1', token: 'wiki-token-0123456789' }, generate: ['webhook_token'] },
  });
  t.equal(set.status, 201);
  t.ok(node.secrets.resolve('SVC_WIKI_WEBHOOK_TOKEN'), 'sealed');
  const del = await node.call('DELETE', '/setup/integrations/wiki');
  t.equal(del.status, 200);
  t.match(await json(del), { removed: true, secrets_removed: ['SVC_WIKI_WEBHOOK_TOKEN'] });
  t.equal(node.secrets.resolve('SVC_WIKI_WEBHOOK_TOKEN'), undefined, 'the cloud token went with the block');
  t.equal(node.secrets.resolve('SVC_WIKI_TOKEN'), 'wiki-token-0123456789', 'a referenced value stays');
  t.match(await json(await node.call('GET', '/setup/integrations/wiki')), { configured: false });
});

t.test('a wiki cloud token set without the block is removed by a disconnect too', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const set = await node.call('POST', '/setup/integrations/wiki/inputs', {
    body: { generate: ['webhook_token'] },
  });
  t.equal(set.status, 200, 'only the store changed');
  const del = await node.call('DELETE', '/setup/integrations/wiki');
  t.match(await json(del), { removed: false, secrets_removed: ['SVC_WIKI_WEBHOOK_TOKEN'] });
  t.equal(node.secrets.resolve('SVC_WIKI_WEBHOOK_TOKEN'), undefined);
});

t.test('a disconnect the writer refuses leaves the cloud token in the store', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const first = await node.putDocument(company());
  await node.call('POST', '/setup/integrations/wiki/inputs', {
    body: { values: { cloud_id: 'site-1', token: 'wiki-token-0123456789' }, generate: ['webhook_token'] },
  });
  const stale = await node.call('DELETE', '/setup/integrations/wiki', {
    headers: { 'if-match': `"${first}"` },
  });
  t.equal(stale.status, 409);
  t.ok(node.secrets.resolve('SVC_WIKI_WEBHOOK_TOKEN'), 'still sealed: the wiki is still configured');
});
