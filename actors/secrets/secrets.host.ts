/**
 * The secret store's host: answers `svc.cmd.secrets.put | delete | rekey` and is the only writer of
 * the `svc_secrets` bucket (DESIGN.md: the gateway never writes state). Every node runs one; they
 * share the bucket, so any of them may answer. Values never reach a log line.
 */
import type { Logger } from 'pino';
import {
  KvConflictError,
  serveCommand,
  type Bus,
  type Kv,
  type Subscription,
  type Keyring,
} from '../../bus/index.js';
import {
  Commands,
  isSecretName,
  StoredSecret,
  type SecretDelete,
  type SecretPut,
  type SecretRekey,
  type SecretReply,
} from '../../schema/index.js';
import { checkRekey, decidePut, rekeyStep, type Refusal } from './secrets.decide.js';

export interface SecretsHostOptions {
  readonly bus: Bus;
  /** The `svc_secrets` bucket. */
  readonly bucket: Kv;
  readonly keyring: Keyring | null;
  readonly logger: Logger;
  readonly now?: () => Date;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const refused = (r: Refusal): SecretReply => ({ outcome: 'refused', error: r.error, detail: r.detail });
const isRefusal = (value: object): value is Refusal => 'refused' in value;

function parse<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  data: Uint8Array,
): T | null {
  try {
    const parsed = schema.safeParse(JSON.parse(decoder.decode(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Why a command was not parsed (`raw` is its JSON, undefined when it was none): a name outside the
 * grammar is `invalid_name`, anything else `invalid_body`.
 */
function malformed(raw: unknown): SecretReply {
  const name: unknown =
    typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
  return typeof name === 'string' && !isSecretName(name)
    ? { outcome: 'refused', error: 'invalid_name', detail: 'The secret name is outside the grammar.' }
    : { outcome: 'refused', error: 'invalid_body', detail: 'The command does not match its schema.' };
}

/** Reads one stored record; a malformed one reads as absent (it is overwritten by the next put). */
async function readRecord(
  bucket: Kv,
  name: string,
): Promise<{ record: StoredSecret | null; revision: number } | null> {
  const entry = await bucket.get(name);
  if (!entry) return null;
  const parsed = parse(StoredSecret, entry.value);
  return { record: parsed, revision: entry.revision };
}

export async function putSecret(opts: SecretsHostOptions, command: SecretPut): Promise<SecretReply> {
  const decided = decidePut(command, opts.keyring, opts.now?.() ?? new Date());
  if (isRefusal(decided)) return refused(decided);
  const data = encoder.encode(JSON.stringify(decided));
  let revision: number;
  try {
    revision =
      command.if_revision === undefined
        ? await opts.bucket.put(command.name, data)
        : await opts.bucket.update(command.name, data, command.if_revision);
  } catch (error) {
    // Written (or removed) by someone else since the caller's write: theirs stands.
    if (!(error instanceof KvConflictError)) throw error;
    return { outcome: 'ok', revision: error.currentRevision, superseded: true };
  }
  const { sealed: _sealed, v: _v, ...secret } = decided;
  opts.logger.info(
    {
      event: 'secret_put',
      name: command.name,
      actor: command.actor.id,
      source: command.source,
      key_id: decided.key_id,
    },
    'secret stored',
  );
  return { outcome: 'ok', revision, secret };
}

export async function deleteSecret(opts: SecretsHostOptions, command: SecretDelete): Promise<SecretReply> {
  const held = await opts.bucket.get(command.name);
  if (!held) return { outcome: 'ok', revision: 0, removed: false };
  const expected = command.if_revision;
  try {
    await opts.bucket.delete(
      command.name,
      expected === undefined ? undefined : { expectedRevision: expected },
    );
  } catch (error) {
    // Written by someone else since the caller's write: theirs stands.
    if (!(error instanceof KvConflictError)) throw error;
    return { outcome: 'ok', revision: error.currentRevision, removed: false, superseded: true };
  }
  const history = await opts.bucket.history(command.name);
  const revision = history[history.length - 1]?.revision ?? held.revision;
  opts.logger.info(
    { event: 'secret_deleted', name: command.name, actor: command.actor.id },
    'secret removed',
  );
  return { outcome: 'ok', revision, removed: true };
}

/** Compare-and-set attempts per record before a rekey leaves it to its next run. */
const REKEY_ATTEMPTS = 5;

type RekeyOutcome =
  { readonly kind: 'moved'; readonly revision: number } | { readonly kind: 'kept' | 'unreadable' };

/**
 * Re-seals one record. A write that lands between the read and the compare-and-set is read again: its
 * writer may be a node still on the old key (mid-rotation), whose record would otherwise stay under a
 * key about to be dropped.
 */
async function rekeyOne(opts: SecretsHostOptions, keyring: Keyring, name: string): Promise<RekeyOutcome> {
  for (let attempt = 0; attempt < REKEY_ATTEMPTS; attempt++) {
    const held = await readRecord(opts.bucket, name);
    if (!held?.record) return { kind: 'kept' };
    const step = rekeyStep(held.record, keyring);
    if (step.kind === 'keep') return { kind: 'kept' };
    if (step.kind === 'unreadable') {
      opts.logger.warn(
        { event: 'secret_rekey_unreadable', name, key_id: held.record.key_id, why: step.why },
        'secret cannot be re-sealed',
      );
      return { kind: 'unreadable' };
    }
    try {
      const revision = await opts.bucket.update(
        name,
        encoder.encode(JSON.stringify(step.record)),
        held.revision,
      );
      return { kind: 'moved', revision };
    } catch (error) {
      if (!(error instanceof KvConflictError)) throw error;
    }
  }
  opts.logger.warn({ event: 'secret_rekey_contended', name }, 'secret kept changing during the rekey');
  return { kind: 'kept' };
}

/** Re-seals every record not under the active key. */
export async function rekeySecrets(opts: SecretsHostOptions, command: SecretRekey): Promise<SecretReply> {
  const refusal = checkRekey(command.key_id, opts.keyring);
  if (refusal) return refused(refusal);
  const keyring = opts.keyring as Keyring;
  const moved: string[] = [];
  const unreadable: string[] = [];
  let revision = 0;
  for (const name of (await opts.bucket.keys()).sort()) {
    const outcome = await rekeyOne(opts, keyring, name);
    if (outcome.kind === 'moved') {
      moved.push(name);
      revision = outcome.revision;
    } else if (outcome.kind === 'unreadable') unreadable.push(name);
  }
  opts.logger.info(
    { event: 'secrets_rekeyed', actor: command.actor.id, key_id: keyring.activeKeyId, moved, unreadable },
    'secret store re-sealed',
  );
  return { outcome: 'ok', revision, moved, unreadable, key_id: keyring.activeKeyId };
}

/** Answers the three commands until stopped. */
export function startSecretsHost(opts: SecretsHostOptions): Subscription {
  const invalid = { invalid: malformed };
  const subscriptions = [
    serveCommand(opts.bus, Commands.secrets.put, (command) => putSecret(opts, command), invalid),
    serveCommand(opts.bus, Commands.secrets.delete, (command) => deleteSecret(opts, command), invalid),
    serveCommand(opts.bus, Commands.secrets.rekey, (command) => rekeySecrets(opts, command), invalid),
  ];
  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.stop()));
    },
  };
}
