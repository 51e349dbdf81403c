import type { Test } from 'tap';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { pino } from 'pino';
import t from 'tap';
import { createPassHost, type PassRequest } from '../../actors/index.js';

const logger = pino({ level: 'silent' });

/** A local server that answers every request with `answer` (or never, when it is null). */
async function vendor(t: Test, answer: ((res: ServerResponse) => void) | null): Promise<string> {
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => (answer ? answer(res) : held.push(res)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

const request = (url: string, mode: PassRequest['mode'] = 'check'): PassRequest => ({
  kind: 'codehost-b',
  mode,
  actor: 'ops',
  settings: { url, token: 'tok-0123456789', provisioning: { group: 'acme' } },
  publicUrl: 'https://hooks.example.test/webhooks/codehost-b',
  agentSeats: [],
  seatsWithToken: [],
});

t.test('a vendor that never answers fails the pass once the call deadline passes', async (t) => {
  const url = await vendor(t, null);
  const host = createPassHost({ nodeId: 'n1', logger, callTimeoutMs: 200 });
  const run = await host.run(request(url));
  t.match(run, {
    status: 'failed',
    reason: /codehost-b GET \/api\/v4\/groups\/acme: codehost-b did not answer in time/,
  });
});

t.test('an answer that is not JSON fails the pass without quoting it', async (t) => {
  const url = await vendor(t, (res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>SECRET-PAGE</html>'),
  );
  const run = await createPassHost({ nodeId: 'n1', logger }).run(request(url));
  t.match(run, { status: 'failed', reason: /answered something other than JSON/ });
  t.notMatch(JSON.stringify(run), 'SECRET-PAGE');
});

t.test('a redirect is not followed: the pass fails on it', async (t) => {
  const url = await vendor(t, (res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end());
  const run = await createPassHost({ nodeId: 'n1', logger }).run(request(url));
  t.match(run, { status: 'failed', reason: /answered 302/ });
});

t.test('missing settings fail the pass with the field named, before any call', async (t) => {
  const host = createPassHost({ nodeId: 'n1', logger });
  const noUrl = await host.run({ ...request(''), settings: { token: 'x', provisioning: { group: 'acme' } } });
  t.match(noUrl, { status: 'failed', reason: 'codehost-b: the base URL is not set' });
  const noToken = await host.run({
    ...request('https://x.example.test'),
    settings: { url: 'https://x.example.test' },
  });
  t.match(noToken, { status: 'failed', reason: 'codehost-b: token is not set or resolves empty' });
});

t.test('a pass runs under the id and start its recorded start names (the stream remembers it)', async (t) => {
  const host = createPassHost({ nodeId: 'n1', logger });
  const at = '2026-01-01T00:00:00.000Z';
  const run = await host.run({ ...request(''), kind: 'monitor', settings: {}, id: 'run-1', startedAt: at });
  t.match(run, { id: 'run-1', kind: 'monitor', node: 'n1', started_at: at });
  t.not(
    (await host.run({ ...request(''), kind: 'monitor', settings: {} })).id,
    'run-1',
    'a fresh id otherwise',
  );
});

t.test(
  'a cloud site’s pass checks the token through the API gateway: Basic with email, Bearer without',
  async (t) => {
    const asked: Array<{ path: string; authorization: string }> = [];
    const server = createServer((req, res) => {
      asked.push({ path: req.url ?? '', authorization: req.headers.authorization ?? '' });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"accountId":"a-1"}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const gateway = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const host = createPassHost({ nodeId: 'n1', logger, cloudApiUrl: gateway });
    const tracker = await host.run({
      ...request(''),
      kind: 'tracker-a',
      settings: { cloud_id: 'site-1', email: 'ops@example.test', token: 'api-tok-1' },
    });
    t.match(tracker, { status: 'succeeded', steps: [{ name: 'credentials', outcome: 'ok', detail: 'tracker-a cloud accepts the token' }] }); // prettier-ignore
    const wiki = await host.run({
      ...request(''),
      kind: 'wiki',
      settings: { cloud_id: 'site-1', token: 'oauth-1' },
    });
    t.match(wiki, { status: 'succeeded' });
    t.same(asked, [
      {
        path: '/ex/jira/site-1/rest/api/2/myself',
        authorization: `Basic ${Buffer.from('ops@example.test:api-tok-1').toString('base64')}`,
      },
      { path: '/ex/confluence/site-1/wiki/rest/api/user/current', authorization: 'Bearer oauth-1' },
    ]);
    const odd = await host.run({
      ...request(''),
      kind: 'wiki',
      settings: { cloud_id: '../admin', token: 'x' },
    });
    t.match(odd, { status: 'failed', reason: /cloud_id is not a site id/ });
    t.equal(asked.length, 2, 'no call for an id that is not one');
  },
);
