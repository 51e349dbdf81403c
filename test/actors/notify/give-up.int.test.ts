/**
 * An event a hook keeps failing is given up after ten attempts (about six minutes of waits in production,
 * driven here by the host's `sleep`): one `notification_failed`, the transport goes on to the next event,
 * and the warning line names the transport, never its URL.
 */
import t from 'tap';
import { company, emit, events, hook, setup, until } from './notify.fixture.js';

t.test('ten failed attempts give the event up once and the next event is sent', async (t) => {
  const waits: number[] = [];
  const { bus, transports, lines } = await setup(t, {
    sleep: (ms, signal) => {
      waits.push(ms);
      return signal.aborted ? Promise.reject(new Error('stopped')) : Promise.resolve();
    },
  });
  const h = await hook(t, Array<number>(10).fill(503));
  await transports.applier.apply(company({ ops: { type: 'webhook', url: h.url, events: ['budget_exhausted'] } }), null); // prettier-ignore
  const failing = await emit(bus, 'budget_exhausted', 'ada');
  const next = await emit(bus, 'budget_exhausted', 'bob');
  await until(() => h.received.length >= 11);
  t.same(
    h.received.map((r) => r.headers['webhook-id']),
    [...Array<string>(10).fill(failing), next],
    'ten attempts of the failing event, then the next one once',
  );
  t.same(
    waits,
    [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000],
    'the backoff between them',
  );
  const failed = await events(bus, 'notification_failed');
  t.equal(failed.length, 1, 'given up once');
  t.match(failed[0], {
    failed: true,
    agent_id: 'ada',
    payload: { transport: 'ops', event_id: failing, event_type: 'budget_exhausted', attempts: 10, status: 503, reason: 'gave_up' }, // prettier-ignore
  });
  const warned = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['event'] === 'notification_failed'); // prettier-ignore
  t.equal(warned.length, 1, 'one warning line');
  t.match(warned[0], { level: 40, transport: 'ops', event_id: failing, attempts: 10, status: 503, reason: 'gave_up' }); // prettier-ignore
  t.same(
    Object.keys(warned[0]!).filter((k) => !['level', 'time', 'pid', 'hostname', 'component', 'msg'].includes(k)).sort(), // prettier-ignore
    ['attempts', 'event', 'event_id', 'event_type', 'reason', 'status', 'transport'],
    'the line names the transport and the event, nothing of where it was sent',
  );
  t.notMatch(lines.join(''), /TOKEN-IN-PATH|127\.0\.0\.1/, 'no line carries the URL');
});
