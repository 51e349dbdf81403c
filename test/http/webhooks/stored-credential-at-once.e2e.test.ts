/**
 * A receiver credential written to the secret store is used from the next delivery on: `PUT /secrets`
 * answers once the node sees the value (ops/secrets.md), so a vendor told "it is set" is not refused
 * while the receiver still holds the settings it built before the write.
 */
import t from 'tap';
import { startNode, TOKEN } from '../../harness/serve-node.js';
import { keyringYaml } from '../fixtures/secrets-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };

t.test('a receiver token put into the secret store is taken by the very next delivery', async (t) => {
  const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'first' },
    body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }] }),
  });
  t.equal(put.status, 201, await put.clone().text());
  await node.run.waitForLog((line) => line.msg === 'config applied');

  const deliver = (token: string): Promise<Response> =>
    fetch(`${node.url}/webhooks/monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': token },
      body: JSON.stringify({ status: 'firing', title: 'disk full' }),
    });
  // Before the write: the receiver has no token and fails closed (its settings are now cached).
  t.equal((await deliver('first-monitor-token-0123456789')).status, 503);

  const store = (value: string): Promise<Response> =>
    fetch(`${node.url}/secrets/SVC_MONITOR_WEBHOOK_TOKEN`, { method: 'PUT', headers: auth, body: value });
  t.equal((await store('first-monitor-token-0123456789')).status, 200);
  const first = await deliver('first-monitor-token-0123456789');
  t.equal(first.status, 200, 'the stored token is used at once');
  t.match(await first.json(), { accepted: true });

  t.equal((await store('second-monitor-token-0123456789')).status, 200);
  t.equal(
    (await deliver('first-monitor-token-0123456789')).status,
    401,
    'the replaced token is refused at once',
  );
  t.equal((await deliver('second-monitor-token-0123456789')).status, 200, 'and its successor taken');
});
