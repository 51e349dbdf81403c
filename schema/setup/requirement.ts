/**
 * Setup requirements (spec "Other resources": setup requirement, integration state). Each integration
 * kind declares what an operator must supply in its own module; the declarations are pure data, so
 * the gateway reads them and the provisioning host uses the same paths.
 */
import { z } from 'zod';

export const RequirementKind = {
  Secret: 'secret',
  Url: 'url',
  Id: 'id',
  Choice: 'choice',
  Text: 'text',
  Handle: 'handle',
  Toggle: 'toggle',
} as const;
export type RequirementKind = (typeof RequirementKind)[keyof typeof RequirementKind];

export const SetupKind = {
  TrackerA: 'tracker-a',
  Wiki: 'wiki',
  Relay: 'relay',
  Chat: 'chat',
  CodehostA: 'codehost-a',
  CodehostB: 'codehost-b',
  TrackerB: 'tracker-b',
  Monitor: 'monitor',
} as const;
export type SetupKind = (typeof SetupKind)[keyof typeof SetupKind];

/** One thing an operator supplies. `config_path` is a document path (`integrations.tracker_a.token`). */
export interface Requirement {
  readonly field: string;
  readonly label: string;
  readonly kind: RequirementKind;
  /** Where the value lives in the company document; null when it lives in the secret store only. */
  readonly config_path: string | null;
  /** The secret-store name a credential is sealed under (unless the document already names another). */
  readonly secret_name: string | null;
  readonly required: boolean;
  /** The service may generate it (a webhook secret both sides share). */
  readonly mintable: boolean;
  readonly help: string;
  /** Where in the vendor's product the value is found or entered. */
  readonly where: string;
  readonly vendor_url: string | null;
  /** The reconcile finding that stays raised while this requirement is missing. */
  readonly blocks: string;
  /** `choice`: the accepted values. */
  readonly choices?: readonly string[];
  /** How a string input becomes the document value (default: as is). */
  readonly shape?: 'list' | 'integer';
  /** Per-seat credential: `config_path` is relative to the seat named by the kind's handle field. */
  readonly per_seat?: boolean;
  /** Shortest accepted value (a shared token the receiving route checks). */
  readonly min_length?: number;
}

export interface KindSpec {
  readonly key: SetupKind;
  /** The document path of the kind's block (`integrations.tracker_a`); null when it has none. */
  readonly block_path: string | null;
  /** The receiver third parties deliver to (`/webhooks/...`). */
  readonly inbound_path: string;
  readonly requirements: readonly Requirement[];
  /** A seat's own token for this kind (relative to the seat) and the store name a minted one is sealed under. */
  readonly seat_token?: { readonly path: string; readonly secret_name: string };
  /** Groups of fields of which at least one must be present (`url` or `cloud_id`). */
  readonly one_of?: ReadonlyArray<readonly string[]>;
}

/** Fills the fields most requirements share. */
export function requirement(
  r: Omit<Requirement, 'secret_name' | 'required' | 'mintable' | 'vendor_url'> &
    Partial<Pick<Requirement, 'secret_name' | 'required' | 'mintable' | 'vendor_url'>>,
): Requirement {
  return { secret_name: null, required: false, mintable: false, vendor_url: null, ...r };
}

/** `POST /setup/integrations/{kind}/inputs`. */
export const SetupInputs = z.strictObject({
  /** The revision the operator read (bare id or quoted ETag); a stale one is 409 `revision_advanced`. */
  // Long enough for any ETag of a revision id (a UUID, quoted, maybe weak); longer is no revision's.
  if_match: z.string().min(1).max(128).optional(),
  values: z.record(z.string(), z.union([z.string(), z.boolean()])).default({}),
  generate: z.array(z.string()).default([]),
});
export type SetupInputs = z.infer<typeof SetupInputs>;

export const PassMode = { Provision: 'provision', Check: 'check', Disconnect: 'disconnect' } as const;
export type PassMode = (typeof PassMode)[keyof typeof PassMode];

export const StepOutcome = {
  Ok: 'ok',
  Changed: 'changed',
  Missing: 'missing',
  Skipped: 'skipped',
  Failed: 'failed',
} as const;
export type StepOutcome = (typeof StepOutcome)[keyof typeof StepOutcome];

/** One step of a provisioning pass: what was looked at or changed, never a vendor's words. */
export const PassStep = z.object({
  name: z.string(),
  outcome: z.enum(['ok', 'changed', 'missing', 'skipped', 'failed']),
  detail: z.string(),
});
export type PassStep = z.infer<typeof PassStep>;

/** A provisioning pass as this node remembers it. */
export const PassRun = z.object({
  id: z.string(),
  kind: z.string(),
  mode: z.enum(['provision', 'check', 'disconnect']),
  node: z.string(),
  actor: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  status: z.enum(['succeeded', 'failed']),
  /** Why the pass failed, in our words; null when it succeeded. */
  reason: z.string().nullable(),
  steps: z.array(PassStep),
});
export type PassRun = z.infer<typeof PassRun>;
