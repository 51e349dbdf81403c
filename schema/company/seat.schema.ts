/**
 * A seat (spec "Seat (role)", human fields) and a schedule (spec "Schedule"). One schema covers both
 * kinds; which fields a human may carry is a rule (rules-seats.ts), so the refusal can say why.
 */
import { z } from 'zod';
import { handlePattern } from '../document/identity.js';
import {
  count,
  email,
  hasRef,
  invalid,
  isWholeRef,
  nonEmpty,
  positive,
  stringMap,
  strings,
  text,
} from './fields.js';
import { scheduleCron, scheduleName, scheduleTimezone } from './editor-hints.js';
import { SeatIntegrations } from './integrations.schema.js';

export const SeatKind = { Agent: 'agent', Human: 'human' } as const;
export type SeatKind = (typeof SeatKind)[keyof typeof SeatKind];

export const ScheduleTarget = { Each: 'each', Lead: 'lead' } as const;
/** A scheduled run's longest deadline: beyond it the deadline is no longer a date a timer can hold. */
export const SCHEDULE_TIMEOUT_MAX_SECONDS = 7 * 24 * 3600;
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
export const Schedule = z
  .strictObject({
    name: scheduleName.describe(
      'Name of the schedule, unique where it is written: one line of at most 64 characters.',
    ),
    cron: scheduleCron.describe(
      'When it fires: minute hour day-of-month month day-of-week (seconds first when six fields), or a macro such as @daily.',
    ),
    timezone: scheduleTimezone
      .optional()
      .describe('IANA timezone the cron expression is read in; the company timezone when unset.'),
    task: nonEmpty.describe('What the woken seat is asked to do.'),
    target: z
      .enum([ScheduleTarget.Each, ScheduleTarget.Lead])
      .optional()
      .describe('`each` (default): every agent seat in scope; `lead`: the unit’s lead only.'),
    enabled: z.boolean().optional().describe('false: kept but never fires (default true).'),
    catchup: z
      .boolean()
      .optional()
      .describe('Fire once for a time missed while no node ran the scheduler, within the catchup window.'),
    timeout_seconds: positive
      .max(SCHEDULE_TIMEOUT_MAX_SECONDS)
      .optional()
      .describe(
        'A turn still running this long after the firing fails as scheduled_timeout (default 3600, at most 7 days).',
      ),
  })
  .describe('A recurring wake: at each cron time the target seats get `task` on their inbox.');
export type Schedule = z.infer<typeof Schedule>;

/** Tool-server name -> env name -> value (credentials; every value is a secret leaf). */
export const McpEnv = z
  .record(z.string(), stringMap)
  .describe('Tool-server name → environment for its per-seat process (credentials; values are secrets).');

/** The spec does not fix the sandbox's field-level schema: known keys are typed, others kept. */
export const Sandbox = z.looseObject({
  setup: z
    .union([z.string(), strings])
    .optional()
    .describe('Commands run when the sandbox is prepared (one string or a list).'),
  env: stringMap.optional().describe('Environment of the sandbox.'),
  default_coding_agent: text.optional().describe('The coding agent a run uses unless it names one.'),
  api_key: text
    .optional()
    .describe(
      'Read by no sandbox run (a not_applied warning): give the coding agent its key in env. A secret.',
    ),
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
  chat_user_id: contactValue()
    .optional()
    .describe('Chat member id: mentions, and the channel agents message.'),
  tracker_a_account_id: contactValue().optional().describe('Account id on tracker-a and the wiki.'),
  codehost_a_login: contactValue().optional().describe('Login on codehost-a (compared lowercased).'),
  codehost_b_username: contactValue().optional().describe('Username on codehost-b (compared lowercased).'),
  tracker_b_user_id: contactValue({ test: (v) => uuidLike.test(v), message: 'not a UUID' })
    .optional()
    .describe('User UUID on tracker-b.'),
  operator_id: contactValue({
    test: (v) => tokenId.test(v),
    message: 'not a token id (letters, digits, . _ @ -)',
  })
    .optional()
    .describe('The API token id (Tier A api.auth.tokens) that acts as this person.'),
});

export const Seat = z.strictObject({
  name: nonEmpty.describe('Display name; the handle is derived from it when not given.'),
  handle: handle
    .optional()
    .describe('Unique id across the org ([a-z0-9][a-z0-9-]*); renaming it strands the agent’s memory.'),
  kind: z.enum([SeatKind.Agent, SeatKind.Human]).optional().describe('`agent` (default) or `human`.'),
  /** The unit a root-level seat lands in. */
  unit: nonEmpty.optional().describe('The unit a root-level seat is placed in.'),
  goal: text.optional().describe('What the seat is for.'),
  backstory: text.optional().describe('Background the agent plays from.'),
  responsibilities: strings.optional().describe('What the seat answers for, one per item.'),
  behavioral_guidelines: strings.optional().describe('How the agent behaves, one per item (agents only).'),
  /** Seat or unit names (or seat handles). */
  manages: strings.optional().describe('Seats or units (names or handles) this seat manages.'),
  email: email.optional().describe('Email address (informational; not a delivery channel).'),
  integrations: SeatIntegrations.optional().describe('The seat’s own vendor credentials (agents only).'),
  mcp_env: McpEnv.optional(),
  llm: nonEmpty.optional().describe('Provider key in providers.llm this agent uses first.'),
  token_budget: count.optional().describe('Per-seat token cap per budget window; 0 means unlimited.'),
  learning_enabled: z.boolean().optional().describe('Whether the learning subsystem learns for this agent.'),
  schedules: z.array(Schedule).optional().describe('Recurring wakes of this agent.'),
  sandbox: Sandbox.optional().describe('Coding sandbox settings of this agent.'),
  // Human-only fields.
  contact: Contact.optional().describe('How to reach this person (humans; at least one identity).'),
  availability: text.optional().describe('Free text shown in rosters, such as working hours (humans).'),
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
