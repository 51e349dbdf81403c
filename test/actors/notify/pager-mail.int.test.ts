/**
 * Pager and e-mail transports on a real (in-process) bus: a pager (a real HTTP listener taking Events API v2
 * events) gets an alarm's raise as a trigger and its clear as the resolve of the same incident; a mailbox (a
 * real SMTP server, with a login) gets one message per event keyed by its id, and a recipient the server
 * refuses for good gives the event up with the SMTP reply code, and an attempt that throws is tried again
 * like one without an answer; a refused login is given up with its reply code. No key or password reaches a log line.
 */
import type { AddressInfo, Server } from 'node:net';
import { once } from 'node:events';
import { SMTPServer } from 'smtp-server';
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { startTransports } from '../../../actors/index.js';
import { company, emit, events, hook, setup, until } from './notify.fixture.js';

interface Received {
  readonly from: string;
  readonly to: string[];
  readonly raw: string;
}

/** An SMTP server on loopback that wants `svc` / the fixture's password and refuses `nobody@` for good. */
async function mailbox(t: Test, password: string): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === 'svc' && auth.password === password) done(null, { user: 'svc' });
      else done(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, done) {
      if (address.address.startsWith('nobody@')) {
        const refused = Object.assign(new Error('No such user here'), { responseCode: 550 });
        done(refused);
      } else done();
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        const to = session.envelope.rcptTo.map((r) => r.address);
        received.push({ from, to, raw: Buffer.concat(chunks).toString('utf8') });
        done();
      });
    },
  });
  const listener: Server = server.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(listener.address() as AddressInfo).port}`, received };
}

/** A message's Subject, unfolded and its RFC 2047 encoded words (UTF-8, Q) decoded. */
function subjectOf(raw: string): string {
  const folded = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  const joined = folded.replace(/\r?\n[ \t]/g, ' ').replace(/\?=\s+=\?UTF-8\?Q\?/gi, '');
  return joined.replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_all, word: string) =>
    Buffer.from(
      word
        .replace(/_/g, ' ')
        .replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8'),
  );
}

const alarmPayload = {
  alarm: 'bus_unreachable',
  kind: 'bus_unreachable',
  severity: 'critical',
  node: 'node-a',
  detail: 'the bus is unreachable',
  raised_at: '2026-12-01T10:00:00.000Z',
};

t.test(
  'a pager gets an alarm raised as a trigger and its clear as the resolve of one incident',
  async (t) => {
    const { bus, transports, lines, secrets } = await setup(t);
    const h = await hook(t, [202, 202]);
    await transports.applier.apply(
      company({ oncall: { type: 'pager', url: h.url, routing_key: '${PAGER_KEY}' } }),
      null,
    );
    t.same(transports.running(), ['oncall']);
    const raised = await emit(bus, 'alarm_raised', undefined, alarmPayload);
    await emit(bus, 'alarm_cleared', undefined, { ...alarmPayload, cleared_at: '2026-12-01T10:05:00.000Z' });
    await until(() => h.received.length >= 2);
    const [trigger, resolve] = h.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    t.match(trigger, {
      routing_key: secrets['PAGER_KEY'],
      event_action: 'trigger',
      dedup_key: 'svc/alarm/node-a/bus_unreachable',
      payload: {
        severity: 'critical',
        source: 'node-a',
        class: 'alarm_raised',
        custom_details: { event_id: raised },
      },
    });
    t.same(resolve, {
      routing_key: secrets['PAGER_KEY'],
      event_action: 'resolve',
      dedup_key: 'svc/alarm/node-a/bus_unreachable',
    });
    t.equal(h.received[0]!.headers['content-type'], 'application/json');
    t.notMatch(lines.join(''), /R0UTING-KEY|TOKEN-IN-PATH/, 'neither key nor URL is logged');
  },
);

t.test('a mailbox gets one message per event, keyed by the event id, after a login', async (t) => {
  const { bus, transports, lines, secrets } = await setup(t);
  const m = await mailbox(t, secrets['SMTP_PASSWORD']!);
  await transports.applier.apply(
    company({
      ops: {
        type: 'email',
        url: m.url,
        username: 'svc',
        password: '${SMTP_PASSWORD}',
        from: 'svc <svc@example.com>',
        to: ['ops@example.com', 'Lead <lead@example.com>'],
        events: ['human_asked'],
      },
    }),
    null,
  );
  t.same(transports.running(), ['ops']);
  const id = await emit(bus, 'human_asked', 'ada', {
    to: 'hu',
    question: 'May I merge #12?',
    urgency: 'high',
  });
  await until(() => m.received.length >= 1);
  const [mail] = m.received;
  t.equal(mail!.from, 'svc@example.com');
  t.same(mail!.to, ['ops@example.com', 'lead@example.com']);
  t.equal(subjectOf(mail!.raw), '[svc] human_asked · ada: ada asks hu (high): May I merge #12?');
  t.match(
    mail!.raw,
    new RegExp(`^Message-ID: <${id}@example\\.com>\\r?$`, 'm'),
    'the event id keys the message',
  );
  t.match(mail!.raw, /^Auto-Submitted: auto-generated\r?$/m);
  t.match(mail!.raw, new RegExp(`^X-Svc-Event-Id: ${id}\\r?$`, 'mi'));
  t.match(mail!.raw, new RegExp(`event ${id} at `), 'the body names the event');
  t.notMatch(lines.join(''), /smtp-pass-0123/, 'the password is not logged');
});

t.test('a recipient refused for good gives the event up with the SMTP reply code', async (t) => {
  const { bus, transports, secrets } = await setup(t);
  const m = await mailbox(t, secrets['SMTP_PASSWORD']!);
  await transports.applier.apply(
    company({
      ops: {
        type: 'email',
        url: m.url.replace('smtp://', 'smtp://svc:${SMTP_PASSWORD}@'),
        from: 'svc@example.com',
        to: ['nobody@example.com'],
        events: ['budget_exhausted'],
      },
    }),
    null,
  );
  const id = await emit(bus, 'budget_exhausted', 'ada');
  let failed: Awaited<ReturnType<typeof events>> = [];
  await until(
    () => failed.length > 0 || (void events(bus, 'notification_failed').then((e) => (failed = e)), false),
  );
  t.match(failed[0], {
    payload: { transport: 'ops', event_id: id, status: 550, reason: 'refused', attempts: 1 },
  });
  t.equal(m.received.length, 0, 'nothing was delivered');
});

t.test('an attempt that throws is one without an answer: tried again, not left for redelivery', async (t) => {
  const { bus } = await setup(t);
  const sent: string[] = [];
  // The first attempt throws (as a URL that does not parse once did), the next is taken.
  const transports = startTransports({
    bus,
    nodeId: 'node-b',
    logger: pino({ level: 'silent' }),
    resolve: () => undefined,
    sendMail: (_t, mail) =>
      sent.push(mail.messageId) === 1
        ? Promise.reject(new Error('smtp://svc:pw@x'))
        : Promise.resolve({ status: 250, refused: [] }),
  });
  t.teardown(() => transports.stop());
  await transports.applier.apply(
    company({ ops: { type: 'email', url: 'smtp://mail.example', from: 'svc@example.com', to: ['ops@example.com'], events: ['budget_exhausted'] } }), // prettier-ignore
    null,
  );
  const id = await emit(bus, 'budget_exhausted', 'ada');
  // Within the fixture's wait: the retry comes after a second, a redelivery only after the ack wait.
  await until(() => sent.length >= 2);
  t.same(sent, [`<${id}@example.com>`, `<${id}@example.com>`], 'the same event, once more');
  t.same(await events(bus, 'notification_failed'), [], 'not given up');
});

t.test(
  'a login the server refuses gives the event up with its reply code, and quotes no password',
  async (t) => {
    const { bus, transports, lines, secrets } = await setup(t);
    const m = await mailbox(t, 'another-password');
    await transports.applier.apply(
      company({
        ops: {
          type: 'email',
          url: m.url,
          username: 'svc',
          password: '${SMTP_PASSWORD}',
          from: 'svc@example.com',
          to: ['ops@example.com'],
          events: ['budget_exhausted'],
        },
      }),
      null,
    );
    const id = await emit(bus, 'budget_exhausted', 'ada');
    let failed: Awaited<ReturnType<typeof events>> = [];
    await until(
      () => failed.length > 0 || (void events(bus, 'notification_failed').then((e) => (failed = e)), false),
    );
    t.match(failed[0], {
      payload: { transport: 'ops', event_id: id, status: 535, reason: 'refused', attempts: 1 },
    });
    t.equal(m.received.length, 0, 'nothing was delivered');
    const password = secrets['SMTP_PASSWORD']!;
    t.notMatch(JSON.stringify(failed), password, 'the failure event quotes no password');
    t.notMatch(lines.join(''), password, 'no log line does');
  },
);
