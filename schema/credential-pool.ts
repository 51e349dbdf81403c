/**
 * The credential pool snapshot (`GET /credential-pool`): per LLM provider entry, its keys named by
 * reference (`${VAR}` name, `api_keys[i]` for a literal, or the environment fallback name) with their
 * cooldowns. A key's value never appears here.
 */
import { z } from 'zod';

export const CredentialPoolKey = z.object({
  /** The variable name, `api_keys[i]`, or the fallback name; never the value. */
  ref: z.string(),
  /** Position in `api_keys` (0 for an environment fallback). */
  index: z.number().int().min(0),
  /** RFC 3339 instant the cooldown ends; null when the key is usable. */
  cooling_until: z.string().nullable(),
  /** Why the key is cooling (`rate_limited`, `auth_refused`) or unusable (`unresolved`); null otherwise. */
  reason: z.string().nullable(),
  in_flight: z.number().int().min(0),
  /** Consecutive refusals since the key last succeeded. */
  failures: z.number().int().min(0),
});
export type CredentialPoolKey = z.infer<typeof CredentialPoolKey>;

export const CredentialPoolEntry = z.object({
  /** The provider entry key in `providers.llm`. */
  provider: z.string(),
  type: z.string(),
  model: z.string(),
  keys: z.array(CredentialPoolKey),
});
export type CredentialPoolEntry = z.infer<typeof CredentialPoolEntry>;

/** Provider entry key -> its pool. */
export const CredentialPoolSnapshot = z.record(z.string(), CredentialPoolEntry);
export type CredentialPoolSnapshot = z.infer<typeof CredentialPoolSnapshot>;
