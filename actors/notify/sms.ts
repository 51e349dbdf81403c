/**
 * The `sms` transport (ops/notifications.md): one text message per event and recipient through Twilio's
 * Messages API (`POST {url}/2010-04-01/Accounts/{sid}/Messages.json`, form-encoded, Basic `sid:token`), or a
 * service speaking it. An event's recipients are tried in turn; the ones that took it are not sent it again
 * when a failed one is retried.
 */
import type { EventRecord } from '../../schema/index.js';
import { gsm7, septetCount } from './gsm7.js';
import { eventDetail, headlineAndDetail, whoOf } from './requests.js';
import {
  recipientsVerdict,
  verdictOf,
  type Recipients,
  type ResolvedTransport,
  type Verdict,
} from './transport.js';

type SmsTransport = Extract<ResolvedTransport, { type: 'sms' }>;

/** One POST of a request: the answer's status, null when none came. */
export type PostOnce = (
  url: string,
  request: { headers: Record<string, string>; body: string },
  timeoutMs: number,
) => Promise<number | null>;

/** Two GSM-7 segments in septets: a page, not a report (the event id is in the text for looking it up). */
export const SMS_TEXT_MAX = 306;

/** What the phone shows, all GSM-7: the headline, what the event says, and its id, within two segments. */
export function smsText(event: EventRecord): string {
  const id = gsm7(` #${event.id.slice(0, 8)}`, 20);
  const headline = `svc ${event.failed ? 'FAILED ' : ''}${event.type} - ${whoOf(event)}`;
  return `${gsm7(headlineAndDetail(headline, eventDetail(event)), SMS_TEXT_MAX - septetCount(id))}${id}`;
}

/** The request that sends `event` to one recipient. */
export function smsRequest(
  t: SmsTransport,
  to: string,
  event: EventRecord,
): { url: string; headers: Record<string, string>; body: string } {
  const sender: [string, string] = [t.from.startsWith('MG') ? 'MessagingServiceSid' : 'From', t.from];
  return {
    url: `${t.url.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(t.accountSid)}/Messages.json`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${t.accountSid}:${t.authToken}`).toString('base64')}`,
      'user-agent': 'svc-notifications',
    },
    body: new URLSearchParams([['To', to], sender, ['Body', smsText(event)]]).toString(),
  };
}

/**
 * One attempt at the recipients of `event` not yet settled. Sent once every recipient took it; worth a retry
 * while one may yet take it; refused (with that answer's status) when none can and at least one refused for
 * good, on this attempt or an earlier one.
 */
export async function smsSend(
  postOnce: PostOnce,
  t: SmsTransport,
  event: EventRecord,
  recipients: Recipients,
): Promise<{ status: number | null; verdict: Verdict }> {
  const answers: Array<{ to: string; status: number | null; verdict: Verdict }> = [];
  for (const to of t.to) {
    if (recipients.settled.has(to)) continue;
    const { url, ...request } = smsRequest(t, to, event);
    const status = await postOnce(url, request, t.timeoutMs);
    answers.push({ to, status, verdict: verdictOf(status) });
  }
  return recipientsVerdict(recipients, answers, 201);
}
