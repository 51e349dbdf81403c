/** Commands of the secret store (`actors/secrets`), each answered with `SecretReply`. */
import { SecretDelete, SecretPut, SecretRekey, SecretReply } from '../secrets.js';
import { defineCommand } from './command.js';

const timeoutMs = 15_000;

export const secretsCommands = {
  /** Seal `value_b64` under the active key. */
  put: defineCommand({ area: 'secrets', verb: 'put', request: SecretPut, reply: SecretReply, timeoutMs }),
  delete: defineCommand({
    area: 'secrets',
    verb: 'delete',
    request: SecretDelete,
    reply: SecretReply,
    timeoutMs,
  }),
  /** Re-seal every record not under the active key. */
  rekey: defineCommand({
    area: 'secrets',
    verb: 'rekey',
    request: SecretRekey,
    reply: SecretReply,
    timeoutMs,
  }),
} as const;
