import t from 'tap';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test(
  'a chat delivery for a handle that is no agent seat answers 404, so the vendor stops retrying',
  async (t) => {
    const node = await startWebhookNode();
    t.teardown(() => node.close());
    const body = JSON.stringify({ type: 'event_callback', event_id: 'E1', event: { type: 'message' } });
    for (const handle of ['nobody', 'bob']) {
      const res = await node.post(`/webhooks/chat/${handle}`, body, sign_.chat(SECRETS.chatAda, body));
      t.equal(res.status, 404, `${handle}: 404 (bob is a human seat, which has no chat app)`);
      t.equal(res.headers.get('retry-after'), null, `${handle}: nothing to retry`);
      t.match(res.json, {
        error: 'not_found',
        detail: new RegExp(`No agent seat ${handle} `),
        hint: /\/webhooks\/chat\/<handle> of an agent seat/,
      });
    }
    const challenge = await node.post(
      '/webhooks/chat/nobody',
      JSON.stringify({ type: 'url_verification', challenge: 'c-1' }),
    );
    t.same(challenge.json, { challenge: 'c-1' }, 'a challenge is still answered before the seat is known');
    const large = await node.post('/webhooks/chat/nobody', JSON.stringify({ pad: 'x'.repeat(8192) }));
    t.equal(large.status, 404, 'refused before a body larger than a challenge is read, too');
    const known = await node.post('/webhooks/chat/ada', body, sign_.chat(SECRETS.chatAda, body));
    t.equal(known.status, 200, 'an agent seat with its secret is still served');
    t.ok(node.h.logs.some((l) => l['event'] === 'webhook_unknown_seat'));
  },
);
