/**
 * The LLM credential pool as the `/credential-pool` route shows it (CONTRACTS.md §4): per provider
 * entry key, its keys by reference — the `${VAR}` name, `api_keys[i]` for a literal, or the
 * environment fallback name — with cooldowns; never a value.
 */
import { z } from 'zod';

export const CredentialPoolKey = z.object({
  ref: z.string(),
  index: z.number().int().nonnegative(),
  cooling_until: z.string().nullable(),
  reason: z.string().nullable(),
  in_flight: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
});
export type CredentialPoolKey = z.infer<typeof CredentialPoolKey>;

export const CredentialPoolEntry = z.object({
  provider: z.string(),
  type: z.string(),
  model: z.string(),
  keys: z.array(CredentialPoolKey),
});
export type CredentialPoolEntry = z.infer<typeof CredentialPoolEntry>;

/** Provider entry key -> its pool. */
export const CredentialPoolSnapshot = z.record(z.string(), CredentialPoolEntry);
export type CredentialPoolSnapshot = z.infer<typeof CredentialPoolSnapshot>;
