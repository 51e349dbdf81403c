/**
 * A singleton duty's lease in the coordination store (DESIGN.md: singleton duties). The epoch is
 * the fencing token: a takeover claims the previous epoch + 1; renewals keep it.
 */
import { z } from 'zod';

const instant = z.string().datetime({ offset: true });

export const DutyLease = z.object({
  duty: z.string().min(1),
  /** Node id of the holder (shown by `/fleet`). */
  node: z.string().min(1),
  /** One process of that node: a restarted process is a new holder. */
  instance: z.string().min(1),
  epoch: z.number().int().positive(),
  acquired_at: instant,
  /** Last renewal: the last instant the holder is known to have been running the duty. */
  renewed_at: instant,
  /** Others may take over after this instant. */
  expires_at: instant,
});
export type DutyLease = z.infer<typeof DutyLease>;
