/**
 * A bare webhook receiver: the design floor `scripts/bench/webhooks.ts` prints beside the node. It does only
 * what no node can skip — read the body, check the tracker-b HMAC, hand the delivery to `store` (the
 * bench's durable writes) and answer — with no router, guard, limits, log line or routing behind it.
 * Lives here because only http/ may import uWebSockets.js.
 */
import uws from '@trufflesuite/uws-js-unofficial';
import { verifyHexHmac } from '../webhooks/verify.js';
import { listenBare, type BareApp, type BareServer } from './bare-hello.js';

/** Keeps one verified delivery; resolves true when it was a repeat. */
export type StoreDelivery = (body: Buffer, deliveryId: string) => Promise<boolean>;

export function startBareWebhookServer(
  host: string,
  port: number,
  secret: string,
  store: StoreDelivery,
): Promise<BareServer> {
  const app = uws.App() as BareApp;
  app.get('/health', (res) => void res.end('{"status":"ok"}'));
  app.post('/webhooks/tracker-b', (res, req) => {
    const signature = req.getHeader('x-tracker-b-signature');
    const deliveryId = req.getHeader('x-tracker-b-delivery');
    let aborted = false;
    res.onAborted(() => void (aborted = true));
    const answer = (status: string, body: string): void => {
      if (!aborted) res.cork(() => res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(body)); // prettier-ignore
    };
    const chunks: Buffer[] = [];
    res.onData((chunk, last) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!last) return;
      const body = Buffer.concat(chunks);
      if (!verifyHexHmac(secret, signature, '', body).ok)
        return answer('401 Unauthorized', '{"error":"invalid_token"}');
      store(body, deliveryId).then(
        (duplicate) => answer('200 OK', `{"accepted":true,"duplicate":${duplicate}}`),
        () => answer('503 Service Unavailable', '{"error":"unavailable"}'),
      );
    });
  });
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end());
  return listenBare(app, host, port);
}
