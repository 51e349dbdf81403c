/**
 * What a webhook transport sends (pure): the Standard Webhooks signature against the published vector,
 * the events it takes, what an answer means, and the waits between attempts.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  backoffMs,
  chatText,
  CHAT_TEXT_MAX,
  requestHeaders,
  requestOf,
  resolveTransport,
  takes,
  verdictOf,
  webhookSignature,
} from '../../../actors/notify/transport.js';
import type { EventRecord } from '../../../schema/index.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../../shared/vectors/signatures.json', import.meta.url), 'utf8'),
) as {
  standard_webhooks: { secret: string; id: string; timestamp: string; body: string; signature: string };
};

t.test('a signature is the Standard Webhooks one of the published vector', async (t) => {
  const v = vectors.standard_webhooks;
  t.equal(webhookSignature(v.secret, v.id, v.timestamp, v.body), v.signature);
  t.not(webhookSignature(v.secret, v.id, String(Number(v.timestamp) + 1), v.body), v.signature);
});

const event = (type: string, agent_id?: string): EventRecord => ({
  id: 'evt-1',
  type,
  source: 'node-a/seats',
  timestamp: '2026-12-01T10:00:00.000Z',
  category: 'decision',
  summary: 's',
  actor: 'ada',
  trace_id: '0'.repeat(32),
  span_id: '0'.repeat(16),
  parent_span_id: null,
  failed: false,
  ...(agent_id ? { agent_id } : {}),
  payload: {},
});

t.test('a transport takes its event types, of its seats when it names some', async (t) => {
  const resolve = (s: string): string => s.replace('${HOOK}', 'https://hooks.example/x');
  const all = resolveTransport('ops', { type: 'webhook', url: '${HOOK}' }, resolve);
  t.equal(all.url, 'https://hooks.example/x');
  t.ok(takes(all, event('human_asked', 'ada')), 'the default set has human_asked');
  t.ok(takes(all, event('alarm_raised')), 'and alarms, which belong to no seat');
  t.notOk(takes(all, event('agent_turn_completed', 'ada')), 'but not every event');
  const ada = resolveTransport('ada', { type: 'webhook', url: 'http://h', events: ['agent_turn_completed'], seats: ['ada'] }, resolve); // prettier-ignore
  t.ok(takes(ada, event('agent_turn_completed', 'ada')));
  t.notOk(takes(ada, event('agent_turn_completed', 'bob')), 'another seat’s');
  t.notOk(takes(ada, event('agent_turn_completed')), 'no seat’s, once seats are named');
});

t.test('headers carry the event id and, with a secret, a signature over the body', async (t) => {
  const signed = resolveTransport(
    'ops',
    { type: 'webhook', url: 'http://h', secret: 'plain text secret' },
    (s) => s,
  );
  const body = '{"a":1}';
  const h = requestHeaders(signed, event('alarm_raised'), body, 1_764_583_200_000);
  t.match(h, {
    'webhook-id': 'evt-1',
    'webhook-timestamp': '1764583200',
    'content-type': 'application/json',
  });
  t.equal(h['webhook-signature'], webhookSignature('plain text secret', 'evt-1', '1764583200', body));
  const plain = resolveTransport('ops', { type: 'webhook', url: 'http://h' }, (s) => s);
  t.notOk(
    'webhook-signature' in requestHeaders(plain, event('alarm_raised'), body, 0),
    'unsigned without a secret',
  );
  const empty = resolveTransport('ops', { type: 'webhook', url: 'http://h', secret: '${UNSET}' }, () => '');
  t.equal(empty.secret, null, 'a secret that resolves to nothing signs nothing');
});

t.test('a 2xx is sent, 5xx, 408, 429 and no answer are tried again, any other 4xx is refused', async (t) => {
  t.same([200, 204, 500, 503, 408, 429, null, 400, 401, 404, 410].map(verdictOf), ['sent', 'sent', 'retry', 'retry', 'retry', 'retry', 'retry', 'refused', 'refused', 'refused', 'refused']); // prettier-ignore
  t.same([2, 3, 4, 7, 8, 20].map(backoffMs), [1000, 2000, 4000, 32_000, 60_000, 60_000]);
});

t.test('a chat hook gets the event as text: what happened, to whom, what it says, its id', async (t) => {
  const chat = resolveTransport('channel', { type: 'chat', url: 'https://chat.example/h' }, (s) => s);
  t.equal(chat.secret, null);
  const asked = { ...event('human_asked', 'ada'), payload: { to: 'hu', question: 'May I merge #12?', urgency: 'high' } }; // prettier-ignore
  const request = requestOf(chat, asked, 0);
  t.same(request.headers, { 'content-type': 'application/json', 'user-agent': 'svc-notifications' });
  t.same(JSON.parse(request.body), {
    text: 'human_asked · ada\nada asks hu (high): May I merge #12?\nevent evt-1 at 2026-12-01T10:00:00.000Z',
  });
  const alarm = { ...event('alarm_raised'), summary: 'budget at 90%', failed: true };
  t.equal(chatText(alarm), '✗ alarm_raised · ada\nbudget at 90%\nevent evt-1 at 2026-12-01T10:00:00.000Z');
  t.equal(chatText({ ...alarm, summary: 'x'.repeat(10_000) }).length, CHAT_TEXT_MAX, 'a long one is cut');
  const hook = resolveTransport('ops', { type: 'webhook', url: 'http://h' }, (s) => s);
  const sent = requestOf(hook, asked, 0);
  t.same(JSON.parse(sent.body), asked, 'a webhook still gets the stored record');
  t.equal(sent.headers['webhook-id'], 'evt-1');
});
