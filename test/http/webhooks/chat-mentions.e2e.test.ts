/**
 * A chat message delivered to a seat's chat app, through the real signed route: it is recorded as
 * `chat_message_received` in the trace of the wake it causes, and a mention of the seat's own bot user
 * (or of its handle) makes that wake a `mention`, not a `notification`.
 */
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import { EventRecord } from '../../../schema/index.js';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';
import { startWebhookNode, type WebhookNode } from './fixtures/webhook-node.js';

async function chatEvents(node: WebhookNode): Promise<EventRecord[]> {
  const events = await node.messages(Streams.Events);
  return events
    .map((m) => EventRecord.parse(JSON.parse(Buffer.from(m.data).toString('utf8'))))
    .filter((e) => e.type === 'chat_message_received');
}

/** A message event to ada's app (its bot user is UADA), from Bob (UBOB). */
const message = (id: string, text: string): string =>
  JSON.stringify({
    type: 'event_callback',
    event_id: id,
    authorizations: [{ user_id: 'UADA', is_bot: true }],
    event: { type: 'message', user: 'UBOB', text, channel: 'C1', ts: `${id}.0001` },
  });

async function deliver(node: WebhookNode, id: string, text: string) {
  const body = message(id, text);
  const res = await node.post('/webhooks/chat/ada', body, sign_.chat(SECRETS.chatAda, body));
  return {
    status: res.status,
    text: res.text,
    ...(await node.inbox((m) => m.id.startsWith(`chat:ada:${id}`))),
  };
}

t.test(
  "a chat message mentioning the seat's own bot user wakes it with a mention and records chat_message_received",
  async (t) => {
    const node = await startWebhookNode();
    t.teardown(() => node.close());
    const woke = await deliver(node, 'EvBot', '<@UADA> can you look at the login page?');
    t.equal(woke.status, 200, woke.text);
    t.equal(woke.handle, 'ada');
    t.equal(woke.message.kind, 'mention', 'the bot user is the seat: a mention, not a notification');

    const events = await chatEvents(node);
    t.equal(events.length, 1);
    t.match(events[0], {
      category: 'webhook',
      agent_id: 'ada',
      trace_id: woke.message.trace_id,
      payload: {
        seat: 'ada',
        event: 'message',
        channel: 'C1',
        user: 'UBOB',
        text_excerpt: '<@UADA> can you look at the login page?',
        mentions: ['ada'],
      },
    });

    const again = await node.post(
      '/webhooks/chat/ada',
      message('EvBot', '<@UADA> can you look at the login page?'),
      sign_.chat(SECRETS.chatAda, message('EvBot', '<@UADA> can you look at the login page?')),
    );
    t.same(again.json, { accepted: true, duplicate: true });
    t.equal((await chatEvents(node)).length, 1, 'a redelivery records it once');
  },
);

t.test(
  'a chat message naming the seat by @handle is a mention too; one naming nobody is a notification',
  async (t) => {
    const node = await startWebhookNode();
    t.teardown(() => node.close());
    const named = await deliver(node, 'EvHandle', 'hey @ada, the build is red');
    t.equal(named.message.kind, 'mention');
    const plain = await deliver(node, 'EvPlain', 'the build is red');
    t.equal(plain.message.kind, 'notification');
    const events = await chatEvents(node);
    t.same(
      events.map((e) => [e.payload['text_excerpt'], e.payload['mentions']]),
      [
        ['hey @ada, the build is red', ['ada']],
        ['the build is red', []],
      ],
    );
  },
);
