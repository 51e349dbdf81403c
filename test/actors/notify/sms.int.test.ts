/**
 * The `sms` transport on a real (in-process) bus against a local server speaking Twilio's Messages API
 * (form-encoded POST per message, Basic `sid:token`, 201 with the message): one message per recipient; a
 * recipient whose attempt failed is tried again without texting the others twice; one refused for good
 * gives the event up with its status once the rest took it. The token never reaches a log line.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { gsm7, septetCount } from '../../../actors/notify/gsm7.js';
import { smsText, SMS_TEXT_MAX } from '../../../actors/notify/sms.js';
import { newEvent, Subjects } from '../../../bus/index.js';
import { EventCategory, EventRecord } from '../../../schema/index.js';
import { company, emit, events, setup, until } from './notify.fixture.js';

const SID = `AC${'0123456789abcdef'.repeat(2)}`;

interface Texted {
  readonly path: string;
  readonly authorization: string;
  readonly form: URLSearchParams;
}

/** A Messages API that answers each number with its next status in `plan` (then 201), keeping what it got. */
async function messagesApi(
  t: Test,
  plan: Record<string, number[]>,
): Promise<{ url: string; texts: Texted[] }> {
  const texts: Texted[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      texts.push({ path: req.url ?? '', authorization: req.headers.authorization ?? '', form });
      const status = plan[form.get('To') ?? '']?.shift() ?? 201;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        status === 201 ? JSON.stringify({ sid: `SM${texts.length}`, status: 'queued' }) : '{"code":21211}',
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections(); // the sender keeps its connection alive
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, texts };
}

/** The company with one `sms` transport, `phones`, on the account the API stands for. */
const phones = (url: string, entry: { from: string; to: string[]; events: string[] }) =>
  company({ phones: { type: 'sms', url, account_sid: SID, auth_token: '${SMS_TOKEN}', ...entry } });

t.test('each recipient gets one text; a retried failure does not text the others twice', async (t) => {
  const { bus, transports, lines, secrets } = await setup(t);
  const api = await messagesApi(t, { '+4915100000002': [503] });
  await transports.applier.apply(
    phones(api.url, { from: '+4915100000000', to: ['+4915100000001', '+4915100000002'], events: ['human_asked'] }), // prettier-ignore
    null,
  );
  t.same(transports.running(), ['phones']);
  const id = await emit(bus, 'human_asked', 'cto', { to: 'ada', question: 'May I deploy?', urgency: 'high' });
  await until(() => api.texts.length >= 3);
  t.same(
    api.texts.map((m) => m.form.get('To')),
    ['+4915100000001', '+4915100000002', '+4915100000002'],
    'the second number again, the first not',
  );
  const [first] = api.texts;
  t.equal(first!.path, `/2010-04-01/Accounts/${SID}/Messages.json`);
  t.equal(first!.authorization, `Basic ${Buffer.from(`${SID}:${secrets['SMS_TOKEN']}`).toString('base64')}`);
  t.equal(first!.form.get('From'), '+4915100000000');
  t.match(first!.form.get('Body'), /^svc human_asked - cto: cto asks ada \(high\): May I deploy\? #/);
  t.ok(first!.form.get('Body')!.endsWith(` #${id.slice(0, 8)}`), 'the event id to look it up');
  t.same(await events(bus, 'notification_failed'), []);
  t.notMatch(lines.join(''), /sms-auth-token/, 'the token is not logged');
});

t.test(
  'a number refused for good gives the event up with its status, after the others took it',
  async (t) => {
    const { bus, transports } = await setup(t);
    const api = await messagesApi(t, { '+4915100000009': [400] });
    await transports.applier.apply(
      phones(api.url, { from: `MG${'ab'.repeat(16)}`, to: ['+4915100000009', '+4915100000001'], events: ['budget_exhausted'] }), // prettier-ignore
      null,
    );
    // The transport records the give-up on its own turn, after the texts: heard as it is stored.
    const givenUp = new Promise<EventRecord>((resolve, reject) => {
      const timer = setTimeout(() => {
        void sub.stop();
        reject(new Error('no notification_failed within 10 s'));
      }, 10_000);
      const sub = bus.subscribe(Subjects.event('notification_failed'), (msg) => {
        clearTimeout(timer);
        void sub.stop();
        resolve(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data))));
      });
    });
    givenUp.catch(() => undefined); // awaited below, after the texts; not an unhandled rejection meanwhile
    const id = await emit(bus, 'budget_exhausted', 'cto');
    await until(() => api.texts.length >= 2);
    const failed = [await givenUp];
    t.same(
      api.texts.map((m) => [m.form.get('To'), m.form.get('MessagingServiceSid'), m.form.get('From')]),
      [
        ['+4915100000009', `MG${'ab'.repeat(16)}`, null],
        ['+4915100000001', `MG${'ab'.repeat(16)}`, null],
      ],
      'a messaging service sends instead of a number',
    );
    t.match(failed[0]!.payload, {
      transport: 'phones',
      event_id: id,
      status: 400,
      reason: 'refused',
      attempts: 1,
    });
  },
);

t.test('a text stays within two GSM-7 segments however long the event', async (t) => {
  const long = newEvent({
    type: 'human_asked',
    category: EventCategory.Notification,
    source: 'test',
    summary: 'asks',
    actor: 'cto',
    agent_id: 'cto',
    payload: { to: 'ada', question: '[x] '.repeat(500) },
  });
  const text = smsText(long);
  t.ok(septetCount(text) <= SMS_TEXT_MAX, 'brackets count two septets each');
  t.ok(septetCount(text) >= SMS_TEXT_MAX - 1, 'the room is used');
  t.ok(text.endsWith(`... #${long.id.slice(0, 8)}`), 'cut before the id, which stays');
});

t.test(
  'a text is all GSM-7: a failure, typographic marks and accents are spelled in its alphabet',
  async (t) => {
    const failed = newEvent({
      type: 'agent_turn_completed',
      category: EventCategory.Lifecycle,
      source: 'test',
      summary: 'ada: agent_turn_completed (plan) — “déjà vu” · naïve… ✗ 漢',
      actor: 'ada',
      agent_id: 'ada',
      failed: true,
      payload: {},
    });
    const text = smsText(failed);
    t.equal(
      text,
      `svc FAILED agent_turn_completed - ada: (plan) - "déjà vu" - naive... x ? #${failed.id.slice(0, 8)}`,
    );
    t.ok(
      [...text].every((ch) => gsm7(ch, 2) === ch),
      'every character is in the alphabet',
    );
  },
);
