/**
 * `integrations.chat` is the enable-marker (spec "Integration blocks"): without it chat is off, so a seat's
 * chat deliveries fail closed like those of any receiver switched off, even though the seat still holds
 * its app's signing secret (a disconnect leaves per-seat credentials on their seats).
 */
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test('with chat not enabled a signed chat delivery answers 503 and keeps nothing', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  node.settings = { ...node.settings, chat: { configured: false } };
  const body = JSON.stringify({
    type: 'event_callback',
    event_id: 'EvOff',
    event: { type: 'message', user: 'UBOB', text: 'hi', channel: 'C1', ts: '1.0' },
  });
  const res = await node.post('/webhooks/chat/ada', body, sign_.chat(SECRETS.chatAda, body));
  t.equal(res.status, 503, res.text);
  t.equal(res.headers.get('retry-after'), '30');
  t.notOk(res.json?.['error'], 'codeless, as every receiver without its configuration');
  t.match(res.json?.['detail'], /integrations\.chat/);
  t.equal((await node.messages(Streams.Webhooks)).length, 0, 'nothing kept');
  const large = JSON.stringify({ ...(JSON.parse(body) as object), pad: 'x'.repeat(8192) });
  const unread = await node.post('/webhooks/chat/ada', large, sign_.chat(SECRETS.chatAda, large));
  t.equal(unread.status, 503, 'refused before a body larger than a challenge is read, too');
  const challenge = await node.post(
    '/webhooks/chat/ada',
    JSON.stringify({ type: 'url_verification', challenge: 'c-off' }),
  );
  t.same(challenge.json, { challenge: 'c-off' }, 'the challenge is still answered');
});
