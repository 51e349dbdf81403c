/**
 * What a transport sends (pure): the Standard Webhooks signature against the published vector, a chat
 * hook's text, a pager's Events API v2 events (an alarm's raise and clear one incident), the events a
 * transport takes, what an answer means (HTTP and SMTP), and the waits between attempts.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  chatText,
  CHAT_TEXT_MAX,
  PAGER_SUMMARY_MAX,
  pagerEvent,
  requestHeaders,
  requestOf,
  webhookSignature,
} from '../../../actors/notify/requests.js';
import {
  backoffMs,
  resolveTransport,
  retryAfterMs,
  smtpVerdictOf,
  takes,
  unusable,
  verdictOf,
  type ResolvedTransport,
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
  const body = '{"a":1}';
  const h = requestHeaders('plain text secret', event('alarm_raised'), body, 1_764_583_200_000);
  t.match(h, {
    'webhook-id': 'evt-1',
    'webhook-timestamp': '1764583200',
    'content-type': 'application/json',
  });
  t.equal(h['webhook-signature'], webhookSignature('plain text secret', 'evt-1', '1764583200', body));
  t.notOk(
    'webhook-signature' in requestHeaders(null, event('alarm_raised'), body, 0),
    'unsigned without a secret',
  );
  const empty = resolveTransport('ops', { type: 'webhook', url: 'http://h', secret: '${UNSET}' }, () => '');
  t.equal(empty.type === 'webhook' && empty.secret, null, 'a secret that resolves to nothing signs nothing');
});

t.test('a 2xx is sent, 5xx, 408, 429 and no answer are tried again, any other 4xx is refused', async (t) => {
  t.same([200, 204, 500, 503, 408, 429, null, 400, 401, 404, 410].map(verdictOf), ['sent', 'sent', 'retry', 'retry', 'retry', 'retry', 'retry', 'refused', 'refused', 'refused', 'refused']); // prettier-ignore
  t.same([2, 3, 4, 7, 8, 20].map(backoffMs), [1000, 2000, 4000, 32_000, 60_000, 60_000]);
});

t.test('a Retry-After is read as seconds or a date, within a minute', async (t) => {
  const now = Date.parse('2026-12-01T10:00:00Z');
  t.equal(retryAfterMs('30', now), 30_000);
  t.equal(retryAfterMs(' 0 ', now), 0);
  t.equal(retryAfterMs('3600', now), 60_000, 'never longer than the longest backoff');
  t.equal(retryAfterMs('Tue, 01 Dec 2026 10:00:20 GMT', now), 20_000);
  t.equal(retryAfterMs('Tue, 01 Dec 2026 09:00:00 GMT', now), 0, 'a date passed asks no wait');
  t.equal(retryAfterMs(null, now), null);
  t.equal(retryAfterMs('soon', now), null);
  t.equal(retryAfterMs('-5', now), null);
});

t.test('a redirect is not followed: a 3xx gives the event up with that status', async (t) => {
  // Following it would carry the signed body (and a chat hook's text) to wherever the answer points.
  t.same([301, 302, 307, 308].map(verdictOf), ['refused', 'refused', 'refused', 'refused']);
});

t.test('an SMTP 2yz is sent, 4yz and no reply are tried again, 5yz is refused', async (t) => {
  t.same([250, 221, 421, 450, 451, null, 535, 550, 554].map(smtpVerdictOf), ['sent', 'sent', 'retry', 'retry', 'retry', 'retry', 'refused', 'refused', 'refused']); // prettier-ignore
});

t.test('a chat hook gets the event as text: what happened, to whom, what it says, its id', async (t) => {
  const chat = resolveTransport('channel', { type: 'chat', url: 'https://chat.example/h' }, (s) => s);
  t.notOk('secret' in chat, 'a chat hook signs nothing');
  if (chat.type !== 'chat') throw new Error('a chat transport');
  const asked = { ...event('human_asked', 'ada'), payload: { to: 'hu', question: 'May I merge #12?', urgency: 'high' } }; // prettier-ignore
  const request = requestOf(chat, asked, 0);
  t.same(request.headers, { 'content-type': 'application/json', 'user-agent': 'svc-notifications' });
  t.same(JSON.parse(request.body), {
    text: 'human_asked · ada\nada asks hu (high): May I merge #12?\nevent evt-1 at 2026-12-01T10:00:00.000Z',
  });
  const alarm = { ...event('alarm_raised'), summary: 'budget at 90%', failed: true };
  t.equal(chatText(alarm), '✗ alarm_raised · ada\nbudget at 90%\nevent evt-1 at 2026-12-01T10:00:00.000Z');
  const long = chatText({ ...alarm, summary: 'x'.repeat(10_000) });
  t.equal(long.length, CHAT_TEXT_MAX, 'a long one is cut');
  t.ok(long.endsWith('…\nevent evt-1 at 2026-12-01T10:00:00.000Z'), 'the summary is cut, never the id line');
  const escaped = chatText({ ...alarm, summary: '<&>'.repeat(5_000) });
  t.ok(escaped.length <= CHAT_TEXT_MAX, 'an escaped summary is cut within the cap');
  t.match(
    escaped,
    /\n(&lt;&amp;&gt;)+(&lt;|&lt;&amp;)?…\nevent evt-1 at /,
    'cut between entities, never inside one',
  );
  const seat = { ...event('agent_turn_completed', 'ada'), summary: 'ada: agent_turn_completed (plan)' };
  t.equal(chatText(seat), 'agent_turn_completed · ada\n(plan)\nevent evt-1 at 2026-12-01T10:00:00.000Z', 'the seat and type are not repeated'); // prettier-ignore
  t.equal(
    chatText({ ...seat, summary: 'ada: agent_turn_completed' }),
    'agent_turn_completed · ada\nevent evt-1 at 2026-12-01T10:00:00.000Z',
    'a summary that only repeats the headline adds no line',
  );
  t.match(pagerEvent('R', seat), { payload: { summary: 'agent_turn_completed · ada: (plan)' } });
  const hook = resolveTransport('ops', { type: 'webhook', url: 'http://h' }, (s) => s);
  if (hook.type !== 'webhook') throw new Error('a webhook transport');
  const sent = requestOf(hook, asked, 0);
  t.same(JSON.parse(sent.body), asked, 'a webhook still gets the stored record');
  t.equal(sent.headers['webhook-id'], 'evt-1');
});

const alarm = (type: 'alarm_raised' | 'alarm_cleared', severity = 'critical'): EventRecord => ({
  ...event(type),
  actor: 'node-a',
  summary:
    type === 'alarm_raised' ? `${severity}: the bus is unreachable` : 'cleared: bus_unreachable on node-a',
  payload: { alarm: 'bus_unreachable', kind: 'bus_unreachable', severity, node: 'node-a', raised_at: '2026-12-01T10:00:00.000Z' }, // prettier-ignore
});

t.test('a pager triggers an alarm when raised and resolves the same incident when cleared', async (t) => {
  const raised = pagerEvent('R0UTING', alarm('alarm_raised'));
  t.match(raised, {
    routing_key: 'R0UTING',
    event_action: 'trigger',
    dedup_key: 'svc/alarm/node-a/bus_unreachable',
    client: 'svc',
    payload: {
      summary: 'alarm_raised · node-a: critical: the bus is unreachable',
      source: 'node-a',
      severity: 'critical',
      timestamp: '2026-12-01T10:00:00.000Z',
      class: 'alarm_raised',
      custom_details: { event_id: 'evt-1', alarm: 'bus_unreachable' },
    },
  });
  t.same(pagerEvent('R0UTING', { ...alarm('alarm_cleared'), id: 'evt-2' }), {
    routing_key: 'R0UTING',
    event_action: 'resolve',
    dedup_key: 'svc/alarm/node-a/bus_unreachable',
  });
  t.match(pagerEvent('R', alarm('alarm_raised', 'warning')), { payload: { severity: 'warning' } });
});

t.test('a pager pages any other event as its own incident, keyed by the event id', async (t) => {
  const asked = { ...event('human_asked', 'ada'), payload: { to: 'hu', question: 'May I merge?', urgency: 'high' } }; // prettier-ignore
  t.match(pagerEvent('R', asked), {
    event_action: 'trigger',
    dedup_key: 'svc/event/evt-1',
    payload: { summary: 'human_asked · ada: ada asks hu (high): May I merge?', severity: 'error', component: 'ada', source: 'node-a/seats', group: 'decision' }, // prettier-ignore
  });
  t.match(pagerEvent('R', { ...asked, payload: { question: 'Lunch?' } }), {
    payload: { severity: 'warning' },
  });
  t.match(pagerEvent('R', event('budget_exhausted', 'ada')), { payload: { severity: 'error' } });
  t.match(pagerEvent('R', event('agent_turn_completed', 'ada')), { payload: { severity: 'info' } });
  t.match(pagerEvent('R', { ...event('agent_turn_completed', 'ada'), failed: true }), { payload: { severity: 'error' } }); // prettier-ignore
  const long = pagerEvent('R', { ...event('budget_exhausted'), summary: 'x'.repeat(5000) }) as { payload: { summary: string } }; // prettier-ignore
  t.equal(long.payload.summary.length, PAGER_SUMMARY_MAX, 'a summary is cut to what the API takes');
});

t.test('a pager posts its event as JSON to the Events API v2 endpoint by default', async (t) => {
  const pager = resolveTransport('oncall', { type: 'pager', routing_key: '${KEY}' }, (s) => s.replace('${KEY}', 'R0UTING')); // prettier-ignore
  t.match(pager, { type: 'pager', url: 'https://events.pagerduty.com/v2/enqueue', routingKey: 'R0UTING' });
  if (pager.type !== 'pager') throw new Error('a pager transport');
  const request = requestOf(pager, alarm('alarm_raised'), 0);
  t.same(request.headers, { 'content-type': 'application/json', 'user-agent': 'svc-notifications' });
  t.match(JSON.parse(request.body), { routing_key: 'R0UTING', event_action: 'trigger' });
});

t.test(
  'a transport whose references resolve to nothing usable is named unusable, without its value',
  async (t) => {
    const none = (): string => '';
    const cases: Array<[ResolvedTransport, string | null]> = [
      [resolveTransport('a', { type: 'webhook', url: 'https://h.example/x' }, (s) => s), null],
      [
        resolveTransport('b', { type: 'chat', url: '${HOOK}' }, none),
        'its url does not resolve to an http(s) URL',
      ],
      [resolveTransport('c', { type: 'pager', routing_key: '${KEY}' }, (s) => (s.startsWith('$') ? '' : s)), 'its routing_key resolves to nothing'], // prettier-ignore
      [resolveTransport('d', { type: 'email', url: '${SMTP}', from: 'svc@example.com', to: ['ops@example.com'] }, none), 'its url does not resolve to an smtp(s) URL'], // prettier-ignore
      [resolveTransport('e', { type: 'email', url: 'smtps://mail.example', from: 'svc@example.com', to: ['ops@example.com'] }, (s) => s), null], // prettier-ignore
      // References that resolve to URLs no sender can use (a bad port, a login that does not decode).
      [resolveTransport('f', { type: 'webhook', url: '${HOOK}' }, () => 'https://u:pw@h.example:99999/x'), 'its url does not resolve to an http(s) URL'], // prettier-ignore
      [resolveTransport('g', { type: 'email', url: '${SMTP}', from: 'svc@example.com', to: ['ops@example.com'] }, () => 'smtp://u%ZZ:pw@mail.example'), 'its url does not resolve to an smtp(s) URL'], // prettier-ignore
    ];
    for (const [transport, why] of cases) t.equal(unusable(transport), why, transport.name);
  },
);
