/**
 * A firing's claim in `svc_schedule_claims` (ops/schedules.md "Claims"): written by the node that fires,
 * with everything the firing sends, so a holder that finds it unfinished (its claimant died between the
 * claim and the wake) sends the same wake and row — the claim's intent, not its own re-plan.
 */
import { z } from 'zod';
import { InboxMessage } from '../inbox.js';
import { LedgerRow } from './schedule.js';

export const ClaimState = {
  /** Won and not yet known complete: the wake or the row may not have been sent. */
  Claimed: 'claimed',
  /** The wake (if any) and the row were sent. */
  Done: 'done',
} as const;

/**
 * The claim as written since claims record progress (`v: 2`). A claim without `v` was written by an
 * earlier release, which wrote nothing after its firing: it reads as done.
 */
export const FiringClaim = z.object({
  v: z.literal(2),
  state: z.enum([ClaimState.Claimed, ClaimState.Done]),
  node: z.string(),
  identity: z.string(),
  epoch: z.number().int().nullable(),
  claimed_at: z.string().datetime({ offset: true }),
  /** The wake to send; null when the firing records a row only (`skipped_catchup`). */
  wake: InboxMessage.nullable(),
  /** The row to record, with the intended outcome (`failed` only once a wake could not be stored). */
  row: LedgerRow,
});
export type FiringClaim = z.infer<typeof FiringClaim>;
