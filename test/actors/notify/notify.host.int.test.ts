/**
 * Outbound webhook transports on a real (in-process) bus against a real HTTP listener: the events a
 * transport takes are POSTed in order, signed, with the event id as `webhook-id`; an answer of
 * 5xx is tried again, a 4xx gives the event up with `notification_failed`; an apply swaps what changed and
 * a removed transport sends nothing more; neither URL nor secret reaches a log line.
 */
import t from 'tap';
import { webhookSignature } from '../../../actors/notify/requests.js';
import type { EventRecord } from '../../../schema/index.js';
import { company, emit, events, hook, setup, until } from './notify.fixture.js';

t.test('the events a transport takes are sent in order, signed, and nothing else', async (t) => {
  const { bus, transports, lines, secrets } = await setup(t);
  const h = await hook(t);
  await emit(bus, 'budget_exhausted', 'ada'); // before the transport: history is not sent
  await transports.applier.apply(
    company({
      ops: {
        type: 'webhook',
        url: h.url,
        secret: '${HOOK_SECRET}',
        events: ['budget_exhausted', 'human_asked'],
      },
    }),
    null,
  );
  t.same(transports.running(), ['ops']);
  const first = await emit(bus, 'budget_exhausted', 'ada');
  await emit(bus, 'agent_turn_completed', 'ada');
  const second = await emit(bus, 'human_asked', 'bob');
  await until(() => h.received.length >= 2);
  await emit(bus, 'human_asked', 'bob');
  await until(() => h.received.length >= 3);
  t.same(
    h.received.slice(0, 2).map((r) => r.headers['webhook-id']),
    [first, second],
    'the chosen types, in order; the earlier one and the other type not sent',
  );
  const [r] = h.received;
  const body = JSON.parse(r!.body) as EventRecord;
  t.match(
    body,
    { id: first, type: 'budget_exhausted', agent_id: 'ada', payload: { n: 1 } },
    'the stored event',
  );
  t.equal(
    r!.headers['webhook-signature'],
    webhookSignature(secrets['HOOK_SECRET']!, first, String(r!.headers['webhook-timestamp']), r!.body),
    'signed with the resolved secret',
  );
  t.equal(r!.headers['content-type'], 'application/json');
  const log = lines.join('');
  t.notMatch(log, /TOKEN-IN-PATH|MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/, 'neither URL nor secret is logged');
});

t.test('a chat transport posts each event it takes as text to the incoming hook', async (t) => {
  const { bus, transports, lines } = await setup(t);
  const h = await hook(t);
  await transports.applier.apply(
    company({ channel: { type: 'chat', url: h.url, events: ['budget_exhausted'] } }),
    null,
  );
  t.same(transports.running(), ['channel']);
  const id = await emit(bus, 'budget_exhausted', 'ada');
  await until(() => h.received.length >= 1);
  const [r] = h.received;
  t.match(JSON.parse(r!.body), {
    text: new RegExp(`^budget_exhausted · ada\\nevent ${id} at `),
  });
  t.equal(r!.headers['content-type'], 'application/json');
  t.notOk(r!.headers['webhook-id'], 'no webhook headers: a chat hook reads none');
  t.notMatch(lines.join(''), /TOKEN-IN-PATH/, 'the hook URL is not logged');
});

t.test('a 5xx is tried again until sent; a 4xx gives the event up with notification_failed', async (t) => {
  const { bus, transports } = await setup(t);
  const h = await hook(t, [503, 200, 404]);
  await transports.applier.apply(
    company({ ops: { type: 'webhook', url: h.url, events: ['alarm_raised'] } }),
    null,
  );
  const retried = await emit(bus, 'alarm_raised');
  const refused = await emit(bus, 'alarm_raised');
  await until(() => h.received.length >= 3);
  t.same(
    h.received.map((r) => r.headers['webhook-id']),
    [retried, retried, refused],
    'the 503 one again (the one behind it waits), then the next',
  );
  let failed: EventRecord[] = [];
  await until(
    () => failed.length > 0 || (void events(bus, 'notification_failed').then((e) => (failed = e)), false),
  );
  t.match(failed[0], {
    type: 'notification_failed',
    failed: true,
    source: 'node-a/notify',
    payload: {
      transport: 'ops',
      event_id: refused,
      event_type: 'alarm_raised',
      status: 404,
      reason: 'refused',
      attempts: 1,
    },
  });
  t.equal(failed.length, 1, 'the retried one was sent: no failure for it');
});

t.test('an apply swaps a changed transport at its place and stops a removed one', async (t) => {
  const { bus, transports } = await setup(t);
  const a = await hook(t);
  const b = await hook(t);
  await transports.applier.apply(
    company({ ops: { type: 'webhook', url: a.url, events: ['alarm_raised'] } }),
    null,
  );
  await emit(bus, 'alarm_raised');
  await until(() => a.received.length === 1);
  await transports.applier.apply(
    company({ ops: { type: 'webhook', url: b.url, events: ['alarm_raised'] } }),
    null,
  );
  const moved = await emit(bus, 'alarm_raised');
  await until(() => b.received.length === 1);
  t.equal(b.received[0]!.headers['webhook-id'], moved, 'the next event goes to the new URL');
  t.equal(a.received.length, 1, 'nothing sent twice across the swap');
  await transports.applier.apply(company({ other: { type: 'chat', channel: '#ops' } }), null);
  t.same(transports.running(), [], 'a transport of a type not built is not started');
  await emit(bus, 'alarm_raised');
  const marker = await hook(t);
  await transports.applier.apply(
    company({ probe: { type: 'webhook', url: marker.url, events: ['alarm_cleared'] } }),
    null,
  );
  await emit(bus, 'alarm_cleared');
  await until(() => marker.received.length === 1);
  t.equal(b.received.length, 1, 'the removed transport sent nothing more');
});
