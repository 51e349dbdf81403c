/**
 * An `email` transport's login travels only over TLS: on `smtp://` to a server off this machine that
 * offers no STARTTLS (or has it stripped on the way), the password is never sent; the event is given up
 * with the server's answer to the STARTTLS it asked for. A loopback relay keeps taking a plain login
 * (pager-mail.int.test.ts), as nothing crosses a network there.
 */
import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { SMTPServer } from 'smtp-server';
import t from 'tap';
import { company, emit, events, setup, until } from './notify.fixture.js';

/** An address of this machine that is not loopback: a server there is reached over a network interface. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

t.test(
  'a mail login is never sent in the clear to a server that offers no STARTTLS',
  { skip: outside === undefined ? 'no non-loopback IPv4 interface' : false },
  async (t) => {
    const { bus, transports, secrets } = await setup(t);
    const logins: string[] = [];
    let delivered = 0;
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, done) {
        logins.push(auth.password ?? '');
        done(null, { user: auth.username });
      },
      onData(stream, _session, done) {
        stream.on('data', () => undefined);
        stream.on('end', () => (delivered++, done()));
      },
    });
    const listener: Server = server.listen(0, outside);
    await once(listener, 'listening');
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (listener.address() as AddressInfo).port;
    await transports.applier.apply(
      company({
        ops: {
          type: 'email',
          url: `smtp://${outside}:${port}`,
          username: 'svc',
          password: '${SMTP_PASSWORD}',
          from: 'svc@example.com',
          to: ['ops@example.com'],
          events: ['budget_exhausted'],
          timeout_seconds: 5,
        },
      }),
      null,
    );
    const id = await emit(bus, 'budget_exhausted', 'ada');
    let failed: Awaited<ReturnType<typeof events>> = [];
    // Whichever comes first: the message delivered (after a plain login) or the event given up.
    await until(
      () =>
        delivered > 0 ||
        failed.length > 0 ||
        (void events(bus, 'notification_failed').then((e) => (failed = e)), false),
    );
    t.match(
      failed[0],
      { payload: { transport: 'ops', event_id: id, reason: 'refused', attempts: 1, status: Number } },
      'given up with the reply to STARTTLS',
    );
    t.same(logins, [], 'no login was attempted in the clear');
    t.notOk(logins.includes(secrets['SMTP_PASSWORD']!), 'the password never reached the server');
    t.equal(delivered, 0, 'nothing was delivered');
  },
);
