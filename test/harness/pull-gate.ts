/**
 * A TCP proxy in front of a nats-server that lets a client's first JetStream pull request(s) through and
 * then holds everything the client sends until `release()`: the server delivers that first batch and no
 * more, so a consumer stays behind the stream at a known place while another connection acts on it.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface PullGate {
  readonly url: string;
  /** The pull requests held so far. */
  held(): number;
  /** Sends what was held, in order, and gates nothing more. */
  release(): void;
  close(): Promise<void>;
}

const PULL = '$JS.API.CONSUMER.MSG.NEXT.';
const CRLF = Buffer.from('\r\n');

/** The length of the client protocol operation at the head of `buf` (PUB/HPUB with payload), or null. */
export function opLength(buf: Buffer): { readonly length: number; readonly subject: string | null } | null {
  const eol = buf.indexOf(CRLF);
  if (eol < 0) return null;
  const line = buf.subarray(0, eol).toString('latin1');
  const [verb = '', subject = '', ...rest] = line.split(' ').filter((w) => w !== '');
  const op = verb.toUpperCase();
  if (op !== 'PUB' && op !== 'HPUB') return { length: eol + 2, subject: null };
  const total = Number(rest[rest.length - 1]);
  const length = eol + 2 + total + 2;
  return buf.length < length ? null : { length, subject };
}

export async function startPullGate(
  target: { host: string; port: number },
  opts: { allow?: number; t?: { teardown(fn: () => unknown): void } } = {},
): Promise<PullGate> {
  const allow = opts.allow ?? 1;
  let pulls = 0;
  let gating = true;
  const releases: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    let pending = Buffer.alloc(0);
    const held: Buffer[] = [];
    releases.push(() => {
      for (const chunk of held.splice(0)) upstream.write(chunk);
      if (pending.length > 0) upstream.write(pending);
      pending = Buffer.alloc(0);
    });
    client.on('data', (chunk: Buffer) => {
      if (!gating) return void upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (let op = opLength(pending); op; op = opLength(pending)) {
        const bytes = pending.subarray(0, op.length);
        pending = pending.subarray(op.length);
        if (op.subject?.startsWith(PULL) && ++pulls > allow) held.push(Buffer.from(bytes));
        else if (held.length > 0) held.push(Buffer.from(bytes));
        else upstream.write(bytes);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const gate: PullGate = {
    url: `nats://127.0.0.1:${port}`,
    held: () => Math.max(0, pulls - allow),
    release() {
      gating = false;
      for (const release of releases) release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  opts.t?.teardown(() => gate.close());
  return gate;
}
