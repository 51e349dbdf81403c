/**
 * The integration actors' commands (`svc.cmd.integration.<verb>`: provision, check, disconnect) and
 * what an actor needs to know to decide and run a pass. Credentials never travel in a command: the
 * actor's host resolves them where it runs the pass.
 */
import { z } from 'zod';
import { PassRun } from './requirement.js';

export const IntegrationVerb = { Provision: 'provision', Check: 'check', Disconnect: 'disconnect' } as const;
export type IntegrationVerb = (typeof IntegrationVerb)[keyof typeof IntegrationVerb];

/** What the guard saw a caller as: a token's operator, or `anonymous` with the guard disabled (spec "Authentication" 5). */
export const CallerKind = z.enum(['operator', 'anonymous']);

/** Who a setup write is recorded as (`created_by`, `created_by_kind`; a secret's `updated_by`). */
export interface Caller {
  readonly id: string;
  readonly kind: z.infer<typeof CallerKind>;
}

export const IntegrationCommand = z.strictObject({
  /** A setup kind (`tracker-b`, `monitor`, ...). */
  kind: z.string().min(1),
  /** Who asked (an operator id, or `anonymous`). */
  actor: z.string().min(1),
  /** The asker's kind; absent for `operator`, so an operator's command is the one an older build reads. */
  actor_kind: CallerKind.optional(),
});
export type IntegrationCommand = z.infer<typeof IntegrationCommand>;

/** The command's fields naming `caller` (`actor_kind` only when not `operator`: see above). */
export const commandCaller = (caller: Caller): Pick<IntegrationCommand, 'actor' | 'actor_kind'> =>
  caller.kind === 'operator' ? { actor: caller.id } : { actor: caller.id, actor_kind: caller.kind };

export const callerOf = (command: IntegrationCommand): Caller => ({
  id: command.actor,
  kind: command.actor_kind ?? 'operator',
});

/** A refusal as the gateway renders it (status, code, words), carried back from the actor unchanged. */
export const PassRefusal = z.object({
  status: z.number().int(),
  error: z.string(),
  detail: z.string(),
  hint: z.string(),
  extra: z.record(z.string(), z.unknown()).default({}),
});
export type PassRefusal = z.infer<typeof PassRefusal>;

export const IntegrationReply = z.discriminatedUnion('outcome', [
  /** The pass ran (it may have failed: `run.status`); `revision_id` names a revision it stored. */
  z.object({ outcome: z.literal('ran'), run: PassRun, revision_id: z.string().nullable() }),
  /** A disconnect with nothing configured, or a provision or check of a kind with no block: no pass ran. */
  z.object({ outcome: z.literal('not_configured') }),
  z.object({ outcome: z.literal('refused'), refusal: PassRefusal }),
]);
export type IntegrationReply = z.infer<typeof IntegrationReply>;

/** Thrown by a pass source when the configuration refuses (unreadable revision, a refused write). */
export class PassRefused extends Error {
  override name = 'PassRefused';
  constructor(readonly refusal: PassRefusal) {
    super(`${refusal.error}: ${refusal.detail}`);
  }
}

/** What the active configuration (and the look-ups it references) says of one integration. */
export interface IntegrationFacts {
  /** The kind's block is in the document (a kind without a block: its store-only credentials resolve). */
  readonly configured: boolean;
  /** Configured and not switched off (`enabled: false`). */
  readonly enabled: boolean;
  /** Enabled and every required input resolves. */
  readonly satisfied: boolean;
  /** An active revision exists (a new one can be stored on top of it). */
  readonly document: boolean;
}

/** What a pass of one kind needs, credentials resolved (never logged, never in a record). */
export interface PassInput {
  /** The kind's block with every `${VAR}` resolved (empty object when it has none). */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Where third parties deliver for this kind, or null without a public base URL. */
  readonly publicUrl: string | null;
  /** Handles of the company's agent seats. */
  readonly agentSeats: readonly string[];
  /** Agent seats that already carry their own token for this kind (none is minted for them). */
  readonly seatsWithToken: readonly string[];
  /**
   * Resolved values of the settings' references a setup answer withholds, each with the `${VAR}` that
   * names it instead in the run's reason and step details (and its log line).
   */
  readonly withheld?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
}

/** Where an integration actor's host reads the configuration from, and stores what a provision minted. */
export interface PassSource {
  /** Throws PassRefused when the configuration cannot be read; `revisionId` is the active revision read. */
  prepare(kind: string): Promise<{ facts: IntegrationFacts; input: PassInput; revisionId: string | null }>;
  /**
   * Seals each minted seat token and references it from its seat in one new revision (its id), a
   * compare-and-set on `basisRevisionId` (the revision the pass read). Throws PassRefused, with nothing
   * left sealed, when that revision cannot be stored.
   */
  storeSeatTokens(
    kind: string,
    minted: ReadonlyArray<{ seat: string; value: string }>,
    actor: Caller,
    basisRevisionId: string | null,
  ): Promise<string | null>;
}
