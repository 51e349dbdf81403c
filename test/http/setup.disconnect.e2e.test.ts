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
