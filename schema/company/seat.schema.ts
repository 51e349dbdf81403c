/**
 * A seat (spec "Seat (role)", human fields) and a schedule (spec "Schedule"). One schema covers both
 * kinds; which fields a human may carry is a rule (rules-seats.ts), so the refusal can say why.
 */
import { z } from 'zod';
import { handlePattern } from '../document/identity.js';
import {
  count,
  cron,
  email,
  hasRef,
  invalid,
  isWholeRef,
  nonEmpty,
  positive,
  stringMap,
  strings,
  text,
  timezone,
} from './fields.js';
import { SeatIntegrations } from './integrations.schema.js';

export const SeatKind = { Agent: 'agent', Human: 'human' } as const;
export type SeatKind = (typeof SeatKind)[keyof typeof SeatKind];

export const ScheduleTarget = { Each: 'each', Lead: 'lead' } as const;
export type ScheduleTarget = (typeof ScheduleTarget)[keyof typeof ScheduleTarget];

/** Handles name bus subjects and URLs, so they are short as well as plain. */
export const handle = z
  .string()
  .max(64)
  .regex(handlePattern, 'must start with a lowercase letter or digit and hold only a-z, 0-9 and -');

/**
 * A schedule as written on a seat or a unit. Its scope (`scope_type`, `scope_id`), `runners` and
 * `next_run` come from where it is written and from the clock, so they are not document fields.
 * `target` defaults to `each`, `enabled` to true.
 */
export const Schedule = z.strictObject({
  name: nonEmpty,
  cron,
  timezone: timezone.optional(),
  task: nonEmpty,
  target: z.enum([ScheduleTarget.Each, ScheduleTarget.Lead]).optional(),
  enabled: z.boolean().optional(),
  catchup: z.boolean().optional(),
  timeout_seconds: positive.optional(),
});
export type Schedule = z.infer<typeof Schedule>;

/** Tool-server name -> env name -> value (credentials; every value is a secret leaf). */
export const McpEnv = z.record(z.string(), stringMap);

/** The spec does not fix the sandbox's field-level schema: known keys are typed, others kept. */
export const Sandbox = z.looseObject({
  setup: z.union([z.string(), strings]).optional(),
  env: stringMap.optional(),
  default_coding_agent: text.optional(),
  api_key: text.optional(),
});

const uuidLike = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const tokenId = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

/** A contact identity: trimmed, then a literal or exactly one whole-value `${VAR}`. */
const contactValue = (literal?: { test: (v: string) => boolean; message: string }) =>
  z
    .string()
    .trim()
    .min(1)
    .refine((v) => !hasRef(v) || isWholeRef(v), {
      message: 'a ${VAR} reference must be the whole value, not part of a longer string',
      ...invalid,
    })
    .refine((v) => literal === undefined || hasRef(v) || literal.test(v), {
      message: literal?.message ?? '',
      ...invalid,
    });

export const ContactField = {
  ChatUserId: 'chat_user_id',
  TrackerAAccountId: 'tracker_a_account_id',
  CodehostALogin: 'codehost_a_login',
  CodehostBUsername: 'codehost_b_username',
  TrackerBUserId: 'tracker_b_user_id',
  OperatorId: 'operator_id',
} as const;
export type ContactField = (typeof ContactField)[keyof typeof ContactField];

/** Contact fields whose literal values are compared case-insensitively and stored lowercased. */
export const lowercasedContacts: ReadonlySet<string> = new Set([
  ContactField.CodehostALogin,
  ContactField.CodehostBUsername,
  ContactField.TrackerBUserId,
]);

export const Contact = z.strictObject({
  chat_user_id: contactValue().optional(),
  tracker_a_account_id: contactValue().optional(),
  codehost_a_login: contactValue().optional(),
  codehost_b_username: contactValue().optional(),
  tracker_b_user_id: contactValue({ test: (v) => uuidLike.test(v), message: 'not a UUID' }).optional(),
  operator_id: contactValue({
    test: (v) => tokenId.test(v),
    message: 'not a token id (letters, digits, . _ @ -)',
  }).optional(),
});

export const Seat = z.strictObject({
  name: nonEmpty,
  handle: handle.optional(),
  kind: z.enum([SeatKind.Agent, SeatKind.Human]).optional(),
  /** The unit a root-level seat lands in. */
  unit: nonEmpty.optional(),
  goal: text.optional(),
  backstory: text.optional(),
  responsibilities: strings.optional(),
  behavioral_guidelines: strings.optional(),
  /** Seat or unit names (or seat handles). */
  manages: strings.optional(),
  email: email.optional(),
  integrations: SeatIntegrations.optional(),
  mcp_env: McpEnv.optional(),
  llm: nonEmpty.optional(),
  token_budget: count.optional(),
  learning_enabled: z.boolean().optional(),
  schedules: z.array(Schedule).optional(),
  sandbox: Sandbox.optional(),
  // Human-only fields.
  contact: Contact.optional(),
  availability: text.optional(),
});
export type Seat = z.infer<typeof Seat>;

/** Fields only an agent may carry (spec: rejected on human seats at validation). */
export const runtimeOnlySeatFields = [
  'llm',
  'token_budget',
  'learning_enabled',
  'schedules',
  'integrations',
  'mcp_env',
  'behavioral_guidelines',
  'sandbox',
] as const;

/** Fields only a human may carry. */
export const humanOnlySeatFields = ['contact', 'availability'] as const;
