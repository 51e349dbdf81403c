/**
 * The `email` transport: one message per event (pure: `mailOf`) sent over SMTP (`smtpSend`, nodemailer:
 * TLS from the start on `smtps://`, STARTTLS when the server offers it on `smtp://`). The event id is the
 * message's `Message-ID`, so a repeated attempt is one message to a reader's client, and the message is
 * marked `Auto-Submitted` so vacation replies are not sent back. A server answers each recipient on its own:
 * `mailSend` keeps who took the event, so a retry goes only to those deferred (4yz) and one refused for
 * good (5yz) gives the event up — neither is dropped because another recipient took the message.
 */
import type { EventRecord } from '../../schema/index.js';
import { clip } from '../text.js';
import { eventDetail, eventHeadline, headlineAndDetail } from './requests.js';
import {
  recipientsVerdict,
  smtpVerdictOf,
  type Recipients,
  type ResolvedTransport,
  type Verdict,
} from './transport.js';

export type EmailTransport = Extract<ResolvedTransport, { type: 'email' }>;

export interface Mail {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly messageId: string;
  readonly headers: Record<string, string>;
}

/** Subjects past this are cut (RFC 5322 advises lines under 78; clients show about this much). */
export const SUBJECT_MAX = 160;
/** The event record quoted in the body is cut past this. */
export const RECORD_TEXT_MAX = 64 * 1024;

/** The address of a mailbox: `a@example.com` of `Name <a@example.com>`. */
const addressOf = (mailbox: string): string => (/<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox).trim();

/** The domain of the sender address, for the Message-ID. */
function domainOf(mailbox: string): string {
  const address = addressOf(mailbox);
  return address.slice(address.lastIndexOf('@') + 1).trim() || 'svc.invalid';
}

export function mailOf(t: EmailTransport, event: EventRecord): Mail {
  const detail = eventDetail(event);
  const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
  return {
    from: t.from,
    to: t.to,
    subject: clip(oneLine(`[svc] ${headlineAndDetail(eventHeadline(event), detail)}`), SUBJECT_MAX),
    text: [
      eventHeadline(event),
      ...(detail === '' ? [] : [detail]),
      '',
      `event ${event.id} at ${event.timestamp}`,
      `trace ${event.trace_id}`,
      '',
      clip(JSON.stringify(event, null, 2), RECORD_TEXT_MAX),
      '',
    ].join('\n'),
    messageId: `<${event.id}@${domainOf(t.from)}>`,
    headers: {
      'Auto-Submitted': 'auto-generated',
      'X-Svc-Event-Id': event.id,
      'X-Svc-Event-Type': event.type,
    },
  };
}

/**
 * What the server answered one message: the reply code to the message (null when none came: refused, timed
 * out) and the recipients it refused at RCPT TO, each with its own reply code. The message went to the rest
 * when the reply is a 2yz.
 */
export interface MailAnswer {
  readonly status: number | null;
  readonly refused: ReadonlyArray<{ readonly address: string; readonly status: number | null }>;
}

/** Sends one message to `to` (the envelope's recipients: mailboxes of `mail.to` not yet reached). */
export type SendMail = (t: EmailTransport, mail: Mail, to: readonly string[]) => Promise<MailAnswer>;

/**
 * One attempt at the recipients of `event` not yet settled. Sent once every recipient took it; worth a retry
 * while one may yet take it; refused (with that reply code) when none can and at least one refused for good,
 * on this attempt or an earlier one.
 */
export async function mailSend(
  sendMail: SendMail,
  t: EmailTransport,
  event: EventRecord,
  recipients: Recipients,
): Promise<{ status: number | null; verdict: Verdict }> {
  const to = t.to.filter((r) => !recipients.settled.has(r));
  const answer = await sendMail(t, mailOf(t, event), to);
  const answers = to.map((r) => {
    const address = addressOf(r).toLowerCase();
    // A recipient refused at RCPT TO has its own reply; the others share the message's.
    const status = answer.refused.find((x) => x.address.toLowerCase() === address)?.status ?? answer.status;
    return { to: r, status, verdict: smtpVerdictOf(status) };
  });
  return recipientsVerdict(recipients, answers, answer.status);
}

const replyCode = (text: unknown): number | null => {
  const match = typeof text === 'string' ? /^([2-5]\d\d)\b/.exec(text) : null;
  return match ? Number(match[1]) : null;
};

/** Whether a host is this machine's loopback (`localhost`, 127.0.0.0/8, `::1`). */
function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The server of an `smtp(s)://` URL and its login (the URL's own, unless the transport names one). */
function serverOf(t: EmailTransport) {
  const url = new URL(t.url);
  const secure = url.protocol === 'smtps:';
  const user = t.username ?? (url.username ? decodeURIComponent(url.username) : null);
  const pass = t.password ?? (url.password ? decodeURIComponent(url.password) : null);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    host,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(user !== null ? { auth: { user, pass: pass ?? '' } } : {}),
    // A login crosses a network only inside TLS: a server that offers no STARTTLS (or one stripped on the
    // way) gets no password; its answer to STARTTLS gives the event up. Loopback never leaves the machine.
    requireTLS: user !== null && !secure && !isLoopback(host),
    connectionTimeout: t.timeoutMs,
    greetingTimeout: t.timeoutMs,
    socketTimeout: t.timeoutMs,
  };
}

/** The recipients a server refused at RCPT TO (nodemailer's `rejectedErrors`, on an answer or an error). */
function refusedOf(answer: unknown): MailAnswer['refused'] {
  const errors = (answer as { rejectedErrors?: unknown } | null)?.rejectedErrors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((e: { recipient?: unknown; response?: unknown; responseCode?: unknown }) =>
    typeof e.recipient === 'string'
      ? [{ address: e.recipient, status: replyCode(e.response) ?? (typeof e.responseCode === 'number' ? e.responseCode : null) }] // prettier-ignore
      : [],
  );
}

/** nodemailer, loaded on first use: a node without an `email` transport never loads it. */
export const smtpSend: SendMail = async (t, mail, to) => {
  const { default: nodemailer } = await import('nodemailer');
  let server: ReturnType<typeof serverOf>;
  try {
    server = serverOf(t);
  } catch {
    // A URL that does not parse is an attempt without an answer, never a throw (whose error would carry
    // the URL, login included, to whoever logs it).
    return { status: null, refused: [] };
  }
  const transporter = nodemailer.createTransport(server);
  try {
    const info = await transporter.sendMail({
      from: mail.from,
      to: [...mail.to],
      // The header names every recipient; the envelope only those this attempt is for.
      envelope: { from: addressOf(mail.from), to: to.map(addressOf) },
      subject: mail.subject,
      text: mail.text,
      messageId: mail.messageId,
      headers: mail.headers,
    });
    return { status: replyCode(info.response) ?? 250, refused: refusedOf(info) };
  } catch (err) {
    const code = (err as { responseCode?: unknown }).responseCode;
    return { status: typeof code === 'number' ? code : null, refused: refusedOf(err) };
  } finally {
    transporter.close();
  }
};
