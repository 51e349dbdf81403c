/**
 * Outbound notification transports (`notification_transports`: named outbound transports; the spec shows no
 * field schema, ops/notifications.md records the choice). This release builds `type: webhook` (chosen events
 * POSTed as JSON to a URL, signed Standard Webhooks style when a secret is set) and `type: chat` (each event
 * as one line of text, `{"text": ...}`, to a chat channel's incoming hook). An entry of another type is stored
 * with a `not_applied` warning; an entry of a built type that does not parse is refused on a new write.
 */
import { z } from 'zod';
import { ProblemKind } from './problems.js';
import type { RuleContext } from './rule-context.js';
import { isRecord } from './walk.js';

/** Sent when a transport names no `events`: what an operator is paged for. */
export const DefaultTransportEvents: readonly string[] = Object.freeze([
  'human_asked',
  'alarm_raised',
  'alarm_cleared',
  'budget_exhausted',
  'llm_unavailable',
]);

const url = z
  .string()
  .min(1)
  .refine((value) => value.includes('${') || /^https?:\/\/[^\s/]+/i.test(value), {
    message: 'an http(s) URL, or a ${VAR} reference to one',
  });

/** What every built transport names: where, which events, whose, and how long an attempt waits. */
const delivery = {
  /** Where events are POSTed; may carry a credential (a chat hook's path), so it is a secret leaf. */
  url: url.describe(
    'Where the events are POSTed (http or https); a ${VAR} reference keeps a token out of the document.',
  ),
  events: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(`Event types sent; default ${DefaultTransportEvents.join(', ')}.`),
  seats: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('Only the events of these seats (handles); events of no seat (alarms) are then not sent.'),
  timeout_seconds: z
    .number()
    .positive()
    .max(60)
    .optional()
    .describe('How long one attempt waits for an answer (default 10).'),
};

export const WebhookTransport = z.strictObject({
  type: z.literal('webhook'),
  ...delivery,
  secret: z
    .string()
    .min(1)
    .optional()
    .describe('Signing secret (`whsec_` + base64, or any text): adds Standard Webhooks signature headers.'),
});

/** A chat channel's incoming hook (the `{"text": ...}` body such hooks take); unsigned, as they are. */
export const ChatTransport = z.strictObject({ type: z.literal('chat'), ...delivery });

export const OutboundTransport = z.discriminatedUnion('type', [WebhookTransport, ChatTransport]);
export type OutboundTransport = z.infer<typeof OutboundTransport>;

const typeOf = (entry: unknown): unknown => (isRecord(entry) ? entry['type'] : undefined);
const isBuilt = (entry: unknown): boolean => typeOf(entry) === 'webhook' || typeOf(entry) === 'chat';

/** The entries this release delivers (`webhook`, `chat`), by name; entries that do not parse are left out. */
export function outboundTransports(value: unknown): Map<string, OutboundTransport> {
  const out = new Map<string, OutboundTransport>();
  if (!isRecord(value)) return out;
  for (const [name, entry] of Object.entries(value)) {
    const parsed = OutboundTransport.safeParse(entry);
    if (parsed.success) out.set(name, parsed.data);
  }
  return out;
}

/** Names of entries of a type this release does not build (a `not_applied` warning each). */
export function unbuiltTransports(value: unknown): string[] {
  if (!isRecord(value)) return [];
  return Object.entries(value)
    .filter(([, entry]) => !isBuilt(entry))
    .map(([name]) => name);
}

/** An entry of a built type must parse: refused on a new write, a warning when a stored revision is reloaded. */
export function transportRules(ctx: RuleContext): void {
  const value = ctx.doc['notification_transports'];
  if (!isRecord(value)) return;
  for (const [name, entry] of Object.entries(value)) {
    if (!isBuilt(entry)) continue;
    const parsed = OutboundTransport.safeParse(entry);
    if (parsed.success) continue;
    for (const issue of parsed.error.issues) {
      const segments = ['notification_transports', name, ...issue.path.filter((p) => typeof p !== 'symbol')];
      const kind = issue.code === 'unrecognized_keys' ? ProblemKind.UnknownField : ProblemKind.Invalid;
      ctx.admission(segments, kind, issue.message);
    }
  }
}
