/**
 * The secret store (spec "Secret record", "Secrets and setup routes"): values sealed under the active
 * key in the KV bucket `svc_secrets`, one key per name, written only through the commands below
 * (`Commands.secrets.put | delete | rekey`) and answered with `SecretReply`.
 */
import { z } from 'zod';
import { ErrorCode } from './errors.js';
import { SECRET_SOURCE } from './text-grammars.js';

/** Environment-variable grammar: letters, digits and underscores, not starting with a digit. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Longest accepted name (a KV key and a `${VAR}`; nobody needs more). */
export const SECRET_NAME_MAX = 128;
/** Largest value `PUT /secrets/{name}` accepts (spec "Limits"). */
export const SECRET_VALUE_MAX_BYTES = 64 * 1024;

export const SecretName = z
  .string()
  .max(SECRET_NAME_MAX)
  .regex(SECRET_NAME, 'letters, digits and underscores, starting with a letter or underscore');

export const isSecretName = (name: string): boolean =>
  name.length <= SECRET_NAME_MAX && SECRET_NAME.test(name);

/** Where a value came from: `api` (default), `cli`, `setup`, ... */
export const SecretSource = z.string().regex(SECRET_SOURCE, 'lower-case letters, digits, . _ : - (max 64)');

/** Associated data binding a sealed value to its name: moved to another name, it fails to open. */
export const secretAad = (name: string): string => `svc:secret:${name}`;

/** The public record: everything but the value (spec "Secret record"). */
export const SecretMeta = z.object({
  name: SecretName,
  key_id: z.string().min(1),
  updated_at: z.string().datetime({ offset: true }),
  updated_by: z.string().min(1),
  source: SecretSource,
});
export type SecretMeta = z.infer<typeof SecretMeta>;

/** What one KV entry of `svc_secrets` holds: the record plus `sealed` (`enc:v1:<key_id>:<base64>`). */
export const StoredSecret = SecretMeta.extend({ v: z.literal(1), sealed: z.string().startsWith('enc:v1:') });
export type StoredSecret = z.infer<typeof StoredSecret>;

/** Who sent a command (a token id, `anonymous`, a node id). */
export const SecretActor = z.object({ id: z.string().min(1), kind: z.string().min(1) });

/**
 * A compare-and-set: the write happens only while the name's record is still the one stored at this bucket
 * revision (the caller's own earlier write); otherwise nothing is written and the reply says `superseded`.
 */
const IfRevision = z.number().int().positive().optional();

/** `Commands.secrets.put`: seal `value_b64` (base64 of the raw bytes) under the active key. */
export const SecretPut = z.object({
  name: SecretName,
  value_b64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64'),
  source: SecretSource,
  actor: SecretActor,
  if_revision: IfRevision,
});
export type SecretPut = z.infer<typeof SecretPut>;

/** `Commands.secrets.delete`. */
export const SecretDelete = z.object({ name: SecretName, actor: SecretActor, if_revision: IfRevision });
export type SecretDelete = z.infer<typeof SecretDelete>;

/** `Commands.secrets.rekey`: re-seal every record not under the active key; `key_id` must name it. */
export const SecretRekey = z.object({ key_id: z.string().min(1).optional(), actor: SecretActor });
export type SecretRekey = z.infer<typeof SecretRekey>;

/**
 * The reply to every secrets command. `revision` is the bucket revision the write landed at (a reader
 * waits for its read model to reach it); `put` answers `secret`, `delete` answers `removed`, `rekey`
 * answers `moved` (re-sealed) and `unreadable` (sealed under a key this node lacks; left as they are).
 * `superseded`: an `if_revision` write found a later write under the name, which stands (`revision` is its).
 */
export const SecretReply = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('ok'),
    revision: z.number().int().nonnegative(),
    secret: SecretMeta.optional(),
    removed: z.boolean().optional(),
    moved: z.array(SecretName).optional(),
    unreadable: z.array(SecretName).optional(),
    key_id: z.string().optional(),
    superseded: z.literal(true).optional(),
  }),
  z.object({ outcome: z.literal('refused'), error: ErrorCode, detail: z.string() }),
]);
export type SecretReply = z.infer<typeof SecretReply>;
