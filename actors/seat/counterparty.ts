/**
 * Counterparty profiles (`learning.counterparty`): what a seat has learned about a person who wakes it —
 * the author of a vendor delivery (an issue, a comment, a chat message) who is not a bot. After each
 * completed turn such a person woke, one auxiliary model call (`counterparty_profiler`) revises the
 * profile's traits from the exchange; the next turn that person wakes reads the profile in its prompt.
 * Pure: who the counterparty is, the request, the answer's reading, the next profile and its prompt text.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InboundNotification, type Payloads } from '../../schema/index.js';
import type { LlmRequest } from './providers/index.js';
import type { Wake } from './seat.types.js';
import { jsonAnswer } from './json-answer.js';
import type { Episode } from './turn.episode.js';
import { clip } from '../text.js';

export type CounterpartyProfile = z.infer<typeof Payloads.CounterpartyProfileUpdated>;

/**
 * The person a wake came from, as the vendor names them. `handle`, `name` and `label` are shown (the memory
 * view, prompts) and never an e-mail address; `identity` keys the profile and is never shown.
 */
export interface Counterparty {
  readonly platform: string;
  readonly external_id: string | null;
  readonly handle: string | null;
  readonly name: string | null;
  readonly label: string;
  readonly identity: string;
}

/** Traits a profile keeps, each value a short text: bounded so a profile fits any prompt it goes in. */
export const TRAITS_MAX = 20;
const TRAIT_KEY_MAX = 60;
const TRAIT_VALUE_MAX = 300;

const text = (value: string | undefined): string | null => {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : clip(trimmed, 200);
};

/** Something shaped like an e-mail address (a vendor may put one in a login or display name too). */
const looksLikeEmail = (value: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
const shown = (value: string | null): string | null =>
  value !== null && !looksLikeEmail(value) ? value : null;
const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The counterparty of a wake: a vendor delivery's author who is not a bot; null for schedules and the rest.
 * Labelled by their name, else login, else the vendor's id; one known only by an e-mail address is
 * "person <hash>", since the profile holds no contact details.
 */
export function counterpartyOf(wake: Wake): Counterparty | null {
  const parsed = InboundNotification.safeParse(wake.payload['notification']);
  if (!parsed.success) return null;
  const { trigger, pipeline } = parsed.data;
  if (trigger === null || trigger.bot === true) return null;
  const external_id = text(trigger.id);
  const login = text(trigger.login);
  const fullName = text(trigger.name);
  // The key as it always was (stored profiles keep theirs): the vendor's id, login, name, else e-mail.
  const identity = external_id ?? login ?? fullName ?? text(trigger.email);
  if (identity === null) return null;
  const handle = shown(login);
  const name = shown(fullName);
  const label =
    name ?? handle ?? shown(external_id) ?? `person ${digest(`${pipeline}\u0000${identity}`).slice(0, 8)}`;
  return { platform: pipeline, external_id, handle, name, label, identity };
}

/** The profile's key token: one per (platform, person), by the vendor's id where it gives one. */
export function counterpartyKey(who: Counterparty): string {
  return digest(`${who.platform}\u0000${who.identity}`).slice(0, 32);
}

/** One exchange with the person: what they asked and what the agent did, cut to fit a profiler prompt. */
export const Exchange = z.object({ ask: z.string(), account: z.string(), outcome: z.string() });
export type Exchange = z.infer<typeof Exchange>;

/** Exchanges held for the next profiler call while it rests (the newest kept). */
export const EXCHANGES_HELD = 5;

export const exchangeOf = (episode: Episode): Exchange => ({
  ask: clip(episode.ask, 1_000),
  account: clip(episode.account, 800),
  outcome: episode.review_outcome ?? 'unreviewed',
});

export function profilerRequest(
  who: Counterparty,
  known: CounterpartyProfile | null,
  exchanges: readonly Exchange[],
): LlmRequest {
  const traits = known && Object.keys(known.traits).length > 0 ? JSON.stringify(known.traits) : '(none yet)';
  const told = exchanges.map(
    (x, i) => `### Exchange ${i + 1}\nThey asked: ${x.ask}\nThe agent did (${x.outcome}): ${x.account}`,
  );
  return {
    system: [
      'You keep a short profile of a person an agent works with: stable traits that help the agent work with',
      'them next time (their role, what they care about, how they like answers, their expertise, recurring',
      'requests). Never record secrets, credentials, contact details or anything sensitive about them.',
      'Read the known traits and the exchanges below, then answer with one JSON object and nothing else:',
      `{"traits": {"<trait>": "<short text>", ...}, "corroborated": true | false}`,
      `"traits": the whole revised set (at most ${TRAITS_MAX}); keep a known trait unless an exchange`,
      'contradicts it. "corroborated": whether the exchanges confirm a trait already known.',
    ].join('\n'),
    messages: [
      {
        role: 'user',
        content: [
          `Person: ${who.label}${who.handle && who.handle !== who.label ? ` (@${who.handle})` : ''} on ${who.platform}`,
          `Known traits: ${traits}`,
          ...told,
        ].join('\n\n'),
      },
    ],
    max_tokens: 800,
    temperature: 0,
  };
}

const Answer = z.object({
  traits: z.record(z.string(), z.unknown()),
  corroborated: z.boolean().optional(),
});
export interface ProfilerAnswer {
  readonly traits: Record<string, string>;
  readonly corroborated: boolean;
}

/** A trait value as short text: strings as they are, lists joined, other scalars printed; objects dropped. */
function traitText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : clip(value.trim(), TRAIT_VALUE_MAX);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const items = value.map(traitText).filter((v): v is string => v !== null);
    return items.length === 0 ? null : clip(items.join(', '), TRAIT_VALUE_MAX);
  }
  return null;
}

/** The traits the model wrote, bounded; `undefined` when the answer is not the JSON asked for. */
export function readProfilerAnswer(answer: string): ProfilerAnswer | undefined {
  const parsed = jsonAnswer(answer, Answer);
  if (parsed === undefined) return undefined;
  const traits: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed.traits)) {
    const name = key.trim().slice(0, TRAIT_KEY_MAX);
    const written = traitText(value);
    if (name === '' || written === null) continue;
    if (Object.keys(traits).length >= TRAITS_MAX) break;
    traits[name] = written;
  }
  return { traits, corroborated: parsed.corroborated === true };
}

/**
 * The profile after one more interaction: counted whatever the model answered (null: no answer to use,
 * the known traits stand); the names the vendor gives now replace older ones.
 */
export function nextProfile(
  known: CounterpartyProfile | null,
  who: Counterparty,
  answer: ProfilerAnswer | null,
  now: Date,
): CounterpartyProfile {
  const at = now.toISOString();
  return {
    subject_label: who.label,
    // A profile kept before labels left e-mail addresses out loses any it held.
    subject_handle: who.handle ?? shown(known?.subject_handle ?? null),
    subject_external_id: who.external_id ?? known?.subject_external_id ?? null,
    subject_platform: who.platform,
    subject_name: who.name ?? shown(known?.subject_name ?? null),
    traits: answer ? answer.traits : (known?.traits ?? {}),
    interaction_count: (known?.interaction_count ?? 0) + 1,
    first_seen_at: known?.first_seen_at ?? at,
    last_updated_at: at,
    last_corroborated_at: answer?.corroborated && known ? at : (known?.last_corroborated_at ?? null),
  };
}

/** What a turn's prompt says about the person who woke it. */
export function aboutCounterparty(profile: CounterpartyProfile): string {
  const traits = Object.entries(profile.traits)
    .map(([key, value]) => `- ${key}: ${traitText(value) ?? ''}`)
    .filter((line) => !line.endsWith(': '));
  const seen = `${profile.interaction_count} earlier ${profile.interaction_count === 1 ? 'exchange' : 'exchanges'}`;
  const who = `${profile.subject_label}${profile.subject_handle && profile.subject_handle !== profile.subject_label ? ` (@${profile.subject_handle})` : ''}`;
  return [`What you know about ${who} on ${profile.subject_platform} (${seen}):`, ...(traits.length > 0 ? traits : ['- no traits noted yet'])].join('\n'); // prettier-ignore
}
