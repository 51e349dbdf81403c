/**
 * A rate-limited hook says when to come back (`429` or `503` with `Retry-After`, as chat vendors, the pager
 * API and Twilio answer): the next attempt waits at least that long (at most a minute), not the backoff's
 * first second, so a limited channel is not asked again while it still refuses.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { company, emit, setup, until } from './notify.fixture.js';

t.test('a 429 with Retry-After is tried again no sooner than the hook asked', async (t) => {
  const { bus, transports } = await setup(t);
  const at: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      at.push(performance.now());
      if (at.length === 1) res.writeHead(429, { 'retry-after': '3' }).end('rate_limited');
      else res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T0/B0/hook`;
  await transports.applier.apply(company({ ops: { type: 'chat', url, events: ['budget_exhausted'] } }), null);
  await emit(bus, 'budget_exhausted', 'ada');
  await until(() => at.length >= 2);
  const waited = at[1]! - at[0]!;
  // The backoff alone would come back after one second.
  t.ok(waited >= 2_900, `the second attempt came ${Math.round(waited)} ms after the 429`);
});
