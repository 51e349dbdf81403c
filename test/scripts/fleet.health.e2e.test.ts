/**
 * A node that cannot reach its streams says so (issue #15: `/health` read `ok`/`serve` through a stream
 * outage). A `svc serve` child reaches its nats-server through a TCP proxy; cutting the proxy turns
 * `/health` to `isolated` with a critical alarm and `/ready` to 503 `broker_unlinked`; restoring it brings
 * `ok`, no alarm and ready back, and the raise and the clear are both recorded as events.
 */
import t from 'tap';
import { openBus, Streams, Subjects } from '../../bus/index.js';
import { EventRecord } from '../../schema/index.js';
import { startProxiedNode } from '../harness/proxied-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;

t.test('a node cut from its streams reports isolated, an alarm and not ready, then recovers', async (t) => {
  const { server, proxy, run, url } = await startProxiedNode(t, 'svc-health-');
  const health = async (): Promise<Json> => (await (await fetch(`${url}/health`)).json()) as Json;
  const ready = async (): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${url}/ready`);
    return { status: res.status, body: (await res.json()) as Json };
  };
  const calm = await until(health, (h) => h['status'] === 'ok' && h['alarms'] !== undefined, 30_000);
  t.equal(calm['status'], 'ok');
  t.same(calm['alarms'], { count: 0 }, 'alarms evaluated, none raised');

  // 1. the link is cut: connections end and new ones are swallowed
  proxy.blackhole();
  proxy.cut();
  const cutAt = Date.now();
  const down = await until(health, (h) => h['status'] === 'isolated', 30_000);
  t.equal(down['status'], 'isolated', `health reads isolated after ${Date.now() - cutAt} ms, not ok`);
  t.same(down['alarms'], { count: 1, worst: 'critical' }, 'with a critical alarm');
  t.equal(down['configured'], true, 'still configured');
  const notReady = await ready();
  t.equal(notReady.status, 503);
  t.match(notReady.body, { ready: false, reason: 'broker_unlinked' });
  await run.waitForLog((l) => l.msg.startsWith('alarm raised') && l['alarm'] === 'bus_unreachable', 30_000);

  // 2. the link is back: the client reconnects, the alarm clears, ready again
  proxy.restore();
  const up = await until(health, (h) => h['status'] === 'ok' && (h['alarms'] as Json)['count'] === 0, 45_000);
  t.equal(up['status'], 'ok', 'ok again once reconnected');
  t.same(up['alarms'], { count: 0 });
  t.same((await ready()).body, { ready: true });

  // 3. the raise (held while the bus was unreachable) and the clear are both on the event stream
  const bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  const alarmEvents = async (): Promise<EventRecord[]> => {
    const out: EventRecord[] = [];
    for (const type of ['alarm_raised', 'alarm_cleared'])
      for await (const msg of bus.replay(Streams.Events, { subject: Subjects.event(type) }))
        out.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data))));
    return out.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.type.localeCompare(b.type));
  };
  const events = await until(alarmEvents, (e) => e.length >= 2, 30_000);
  t.same(
    events.map((e) => [e.type, (e.payload as Json)['alarm']]),
    [
      ['alarm_raised', 'bus_unreachable'],
      ['alarm_cleared', 'bus_unreachable'],
    ],
    'raised, then cleared, in order',
  );
  t.match(events[0]!.payload, { severity: 'critical', node: 'node-a' });
});
