/**
 * Transports with several recipients, each answered on its own: an `email` transport against a real SMTP
 * server that answers each RCPT TO, an `sms` one against a local server speaking Twilio's Messages API. A
 * recipient deferred (an SMTP 4yz, greylisting; a 5xx) gets the event on a later attempt while those that
 * took it are not sent it again; a recipient refused for good (a 5yz, a typo; a 4xx) gives the event up with
 * that code once the others took it — on whichever attempt that is, and never dropped silently because
 * another recipient took the event.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { once } from 'node:events';
import { SMTPServer } from 'smtp-server';
import t, { type Test } from 'tap';
import { company, emit, events, setup, until } from './notify.fixture.js';

/** A server that defers `grey@` on its first RCPT TO (greylisting) and refuses `typo@` for good. */
async function mailbox(t: Test): Promise<{ url: string; delivered: string[][] }> {
  const delivered: string[][] = [];
  let greyAsked = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, done) {
      if (address.address.startsWith('grey@') && (greyAsked += 1) === 1)
        done(Object.assign(new Error('Greylisted, try again later'), { responseCode: 450 }));
      else if (address.address.startsWith('typo@'))
        done(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      else done();
    },
    onData(stream, session, done) {
      stream.resume();
      stream.on('end', () => {
        delivered.push(session.envelope.rcptTo.map((r) => r.address));
        done();
      });
    },
  });
  const listener: Server = server.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(listener.address() as AddressInfo).port}`, delivered };
}

const mailTo = (url: string, to: string[]) =>
  company({ ops: { type: 'email', url, from: 'svc@example.com', to, events: ['budget_exhausted'] } });

t.test('a deferred recipient gets the message on a later attempt, the others once', async (t) => {
  const { bus, transports } = await setup(t);
  const m = await mailbox(t);
  await transports.applier.apply(mailTo(m.url, ['ops@example.com', 'Grey <grey@example.com>']), null);
  await emit(bus, 'budget_exhausted', 'ada');
  await until(() => m.delivered.length >= 2);
  t.same(m.delivered, [['ops@example.com'], ['grey@example.com']], 'the deferred one alone on the retry');
  // A marker behind it: once it is delivered, the event before it is settled.
  await emit(bus, 'budget_exhausted', 'ada');
  await until(() => m.delivered.length >= 3);
  t.same(await events(bus, 'notification_failed'), [], 'not given up');
});

t.test(
  'a recipient refused for good gives the event up with its reply code after the others took it',
  async (t) => {
    const { bus, transports } = await setup(t);
    const m = await mailbox(t);
    await transports.applier.apply(
      mailTo(m.url, ['Typo <typo@example.com>', 'grey@example.com', 'ops@example.com']),
      null,
    );
    const id = await emit(bus, 'budget_exhausted', 'ada');
    let failed: Awaited<ReturnType<typeof events>> = [];
    await until(
      () => failed.length > 0 || (void events(bus, 'notification_failed').then((e) => (failed = e)), false),
    );
    t.same(m.delivered, [['ops@example.com'], ['grey@example.com']], 'each recipient that can take it, once');
    t.match(failed[0], {
      payload: { transport: 'ops', event_id: id, status: 550, reason: 'refused', attempts: 2 },
    });
  },
);

/** A Messages API that answers a number's texts with its next status in `plan` (then 201). */
async function messagesApi(t: Test, plan: Record<string, number[]>): Promise<{ url: string; to: string[] }> {
  const to: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const phone = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('To') ?? '';
      to.push(phone);
      const status = plan[phone]?.shift() ?? 201;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        status === 201 ? JSON.stringify({ sid: `SM${to.length}`, status: 'queued' }) : '{"code":21211}',
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections(); // the sender keeps its connection alive
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, to };
}

t.test(
  'a number refused for good on the first attempt still gives the event up after a retried one took it',
  async (t) => {
    const { bus, transports } = await setup(t);
    const api = await messagesApi(t, { '+4915100000009': [400], '+4915100000002': [503] });
    await transports.applier.apply(
      company({
        phones: {
          type: 'sms',
          url: api.url,
          account_sid: `AC${'0123456789abcdef'.repeat(2)}`,
          auth_token: '${SMS_TOKEN}',
          from: '+4915100000000',
          to: ['+4915100000009', '+4915100000002'],
          events: ['budget_exhausted'],
        },
      }),
      null,
    );
    const id = await emit(bus, 'budget_exhausted', 'cto');
    let failed: Awaited<ReturnType<typeof events>> = [];
    await until(
      () => failed.length > 0 || (void events(bus, 'notification_failed').then((e) => (failed = e)), false),
    );
    t.same(
      api.to,
      ['+4915100000009', '+4915100000002', '+4915100000002'],
      'the refused number is not texted again',
    );
    t.match(failed[0], {
      payload: { transport: 'phones', event_id: id, status: 400, reason: 'refused', attempts: 2 },
    });
  },
);
