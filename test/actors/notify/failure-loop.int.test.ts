/**
 * Two transports that each send `notification_failed` (so one reports the other's give-ups) while both
 * refuse everything: each give-up is reported once, and a report that cannot be delivered is logged, not
 * recorded again — otherwise the two would record each other's failures without end.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { company, emit, events, setup, until } from './notify.fixture.js';

/** A hook whose URL was revoked (404), except that it takes `alarm_cleared` (the test's marker). */
async function revokedHook(t: Test): Promise<{ url: string; types: string[] }> {
  const types: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { type } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string };
      types.push(type);
      res.statusCode = type === 'alarm_cleared' ? 200 : 404;
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, types };
}

t.test(
  'two transports reporting each other’s failures record each give-up once, not without end',
  async (t) => {
    const { bus, transports, lines } = await setup(t);
    const a = await revokedHook(t);
    const b = await revokedHook(t);
    const events_ = ['alarm_raised', 'alarm_cleared', 'notification_failed'];
    await transports.applier.apply(
      company({
        chat: { type: 'webhook', url: a.url, events: events_ },
        mail: { type: 'webhook', url: b.url, events: events_ },
      }),
      null,
    );
    await emit(bus, 'alarm_raised');
    // Each refuses the alarm (two reports), then the other's report (logged only).
    await until(() => lines.filter((l) => l.includes('"event":"notification_failed"')).length >= 4);
    // Each transport sends in stream order: once both took the marker, each has seen all before it.
    await emit(bus, 'alarm_cleared');
    await until(() => a.types.includes('alarm_cleared') && b.types.includes('alarm_cleared'));
    const failed = await events(bus, 'notification_failed');
    t.same(
      failed.map((e) => [e.payload['transport'], e.payload['event_type']]).sort(),
      [
        ['chat', 'alarm_raised'],
        ['mail', 'alarm_raised'],
      ],
      'the alarm’s two give-ups are recorded; the reports that could not be delivered are not recorded again',
    );
    t.same(
      a.types,
      ['alarm_raised', 'notification_failed', 'alarm_cleared'],
      'chat tried the other’s report once',
    );
    t.same(
      b.types,
      ['alarm_raised', 'notification_failed', 'alarm_cleared'],
      'mail tried the other’s report once',
    );
  },
);
