/**
 * What a kept delivery carries: the vendor's own headers, but no signature or credential value of any
 * scheme, including ones the receiver does not verify (a legacy SHA-1 signature beside the SHA-256 one).
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { RawHeader } from '../../../schema/index.js';
import { Streams } from '../../../bus/index.js';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test('a second signature header a vendor sends is not stored with the delivery', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const body = JSON.stringify({ action: 'opened', sender: { login: 'bob-gh' }, issue: { number: 7 } });
  const sha1 = `sha1=${createHmac('sha1', SECRETS.codehostA).update(body).digest('hex')}`;
  const res = await node.post('/webhooks/codehost-a', body, {
    ...sign_.codehostA(SECRETS.codehostA, body, 'gh-legacy'),
    'x-codehost-a-signature': sha1,
    'x-hub-signature': sha1,
    'x-codehost-a-hook-id': '42',
  });
  t.equal(res.status, 200, res.text);
  const [kept] = await node.messages(Streams.Webhooks);
  const vendor = JSON.parse(kept?.headers[RawHeader.VendorHeaders] ?? '{}') as Record<string, string>;
  t.equal(vendor['x-codehost-a-hook-id'], '42', 'the vendor’s other headers are kept');
  t.notOk(JSON.stringify(kept?.headers).includes(sha1.slice(5)), 'no signature value is kept');
  t.notOk('x-codehost-a-signature' in vendor);
  t.notOk('x-hub-signature' in vendor);
});
