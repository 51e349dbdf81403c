/**
 * What the notification tests share: a real (in-process) bus with transports started on it, a real HTTP
 * hook that keeps what it got, and ways to emit events and wait for what follows.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { pino } from 'pino';
import type { Test } from 'tap';
import { startTransports } from '../../../actors/index.js';
import type { TransportsOptions } from '../../../actors/notify/notify.host.js';
import {
  ensureCatalogue,
  newEvent,
  openMemoryBus,
  publishEvent,
  Streams,
  Subjects,
  type Bus,
} from '../../../bus/index.js';
import { categoryOf, Company, EventCategory, EventRecord } from '../../../schema/index.js';

export interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A hook that answers each request with the next status of `answers` (then 200), keeping what it got. */
export async function hook(t: Test, answers: number[] = []): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = answers.shift() ?? 200;
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/TOKEN-IN-PATH`, received };
}

/** A bus with transports started on it; `options` replaces parts of the host's (a test's `sleep`). */
export async function setup(t: Test, options: Partial<Pick<TransportsOptions, 'sleep'>> = {}) {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const lines: string[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }),
  );
  const secrets: Record<string, string> = {
    HOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    PAGER_KEY: 'R0UTING-KEY-0123456789abcdef',
    SMTP_PASSWORD: 'smtp-pass-0123456789abcdef',
    SMS_TOKEN: 'sms-auth-token-0123456789abcdef',
  };
  const transports = startTransports({
    bus,
    nodeId: 'node-a',
    logger,
    resolve: (name) => secrets[name],
    ...options,
  });
  t.teardown(() => transports.stop());
  return { bus, transports, lines, secrets };
}

export const company = (transports: Record<string, unknown>): Company =>
  Company.parse({ name: 'Acme', notification_transports: transports });

export async function emit(
  bus: Bus,
  type: string,
  agent_id?: string,
  payload: Record<string, unknown> = { n: 1 },
): Promise<string> {
  const e = newEvent({
    type,
    category: categoryOf(type) ?? EventCategory.System,
    source: 'test',
    summary: type,
    actor: agent_id ?? 'system',
    ...(agent_id ? { agent_id } : {}),
    payload,
  });
  await publishEvent(bus, e);
  return e.id;
}

export const until = async (test: () => boolean): Promise<void> => {
  const deadline = Date.now() + 20_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await tick();
  }
};

export async function events(bus: Bus, type: string): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const m of bus.replay(Streams.Events, { subject: Subjects.event(type) }))
    out.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(m.data))));
  return out;
}
