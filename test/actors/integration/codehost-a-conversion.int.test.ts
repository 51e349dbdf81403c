/**
 * The manifest conversion's answer carries the app's private key and webhook secret, so it is taken only
 * from the code host's API itself: a redirect is not followed (as no vendor call follows one), or another
 * host could hand the node credentials of its choosing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { convertManifest } from '../../../actors/index.js';

async function serve(t: Test, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const app = { id: 7, slug: 'svc-app', pem: '-----BEGIN KEY-----', webhook_secret: 'whsec-other-host' };

t.test('a conversion answered with a redirect is refused, the redirect not followed', async (t) => {
  let followed = 0;
  const elsewhere = await serve(t, (_req, res) => {
    followed += 1;
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(app));
  });
  const api = await serve(t, (req, res) => {
    res.writeHead(307, { location: `${elsewhere}${req.url ?? '/'}` }).end();
  });
  const result = await convertManifest(api, 'code-1');
  t.match(result, { ok: false, status: 503, reason: /answered 307/ });
  t.equal(followed, 0, 'the other host was never asked');
});

t.test("a conversion answered by the code host's API is taken", async (t) => {
  const api = await serve(t, (req, res) => {
    t.equal(req.url, '/app-manifests/code-1/conversions');
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(app));
  });
  t.match(await convertManifest(`${api}/`, 'code-1'), { ok: true, app: { slug: 'svc-app' } });
});
