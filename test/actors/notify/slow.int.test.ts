/**
 * A hook that hangs: an attempt waits `timeout_seconds` for its answer, then is one without an answer — tried
 * again with the same `webhook-id`, the events behind it waiting — rather than holding the transport for good.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { company, emit, events, setup, until } from './notify.fixture.js';

t.test('an attempt the hook never answers is given up at its timeout and tried again', async (t) => {
  const { bus, transports } = await setup(t);
  const ids: string[] = [];
  const hung: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      if (ids.length === 1)
        hung.push(res); // never answered
      else res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  await transports.applier.apply(
    company({ ops: { type: 'webhook', url, events: ['budget_exhausted'], timeout_seconds: 1 } }),
    null,
  );
  const first = await emit(bus, 'budget_exhausted', 'ada');
  const second = await emit(bus, 'budget_exhausted', 'ada');
  await until(() => ids.length >= 3);
  t.same(ids, [first, first, second], 'the hung one again, then the one behind it');
  t.same(await events(bus, 'notification_failed'), [], 'not given up');
});
