/**
 * The secret store over HTTP (spec "Secrets and setup routes", the `/secrets` rows). Reads come from
 * the read model and never carry a value, except an explicit reveal; writes are commands to the
 * secrets host on the bus, answered once this node's read model shows them (read-your-writes).
 * Guarded always (the guard knows `/secrets/*`); `Cache-Control: no-store` comes from the gateway. Each route
 * declares the query parameters it reads: any other is 400 `bad_params`, so `?dry_run=true` stores nothing.
 * On a managed document only its writers may set or remove a secret: `${VAR}` references resolve from
 * the store first, so a value written there rebinds a person or swaps a credential the document names.
 */
import { sendCommand, type Bus, open, type Keyring } from '../../../bus/index.js';
import { listSecrets, metaOfSecret, secretRecord, type SecretsState } from '../../../projections/index.js';
import {
  Commands,
  isSecretName,
  SECRET_NAME_MAX,
  SECRET_VALUE_MAX_BYTES,
  secretAad,
  SecretSource,
  type Command,
  type SecretReply,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { assertCompanyWriter } from '../../guard.js';
import type { ApiReply, ApiRequest, AuthSettings, RequestHead, RouteDef } from '../../types.js';
import { singleParam } from '../single.param.js';

export interface SecretsRouteDeps {
  readonly bus: Bus;
  readonly state: () => SecretsState;
  /** Resolves true once `predicate` holds on the read model, false after `timeoutMs`. */
  readonly until: (predicate: (state: SecretsState) => boolean, timeoutMs: number) => Promise<boolean>;
  /** This node's keyring; null answers 503 `no_keyring` on every route that seals or opens. */
  readonly keyring: Keyring | null;
  /** `company_writers`: on a managed document, set and remove are theirs alone. */
  readonly auth: AuthSettings;
  readonly commandTimeoutMs?: number;
}

/** The store answers the document's `${VAR}` references, so changing it changes a managed document. */
const managedSecret =
  'Its `${VAR}` references resolve from the secret store first, so the store is managed with it.';

function assertWriter(deps: SecretsRouteDeps, req: RequestHead): void {
  assertCompanyWriter(deps.auth, req.actor, managedSecret);
}

function requireName(req: RequestHead): string {
  const name = req.params['name'] ?? '';
  if (!isSecretName(name)) {
    throw new ApiError('invalid_name', {
      detail: `${JSON.stringify(name.slice(0, 64))} is not a secret name: letters, digits and underscores, starting with a letter or underscore, at most ${SECRET_NAME_MAX} characters.`,
    });
  }
  return name;
}

function requireKeyring(deps: SecretsRouteDeps): Keyring {
  if (!deps.keyring) throw new ApiError('no_keyring');
  return deps.keyring;
}

/** `reveal` is `true` or `false` only. */
function readReveal(req: RequestHead): boolean {
  const raw = singleParam(req, 'reveal');
  if (raw === null || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ApiError('invalid_query', {
    detail: `reveal must be true or false, got ${JSON.stringify(raw.slice(0, 32))}`,
    hint: 'Use ?reveal=true to read the value, or leave it out for the record.',
  });
}

function readSource(req: RequestHead): string {
  const raw = singleParam(req, 'source') ?? 'api';
  if (!SecretSource.safeParse(raw).success) {
    throw new ApiError('invalid_query', {
      detail: 'source must be lower-case letters, digits, . _ : - (at most 64), starting with a letter',
      hint: 'Leave it out (api), or name the tool that wrote the value, e.g. ?source=cli.',
    });
  }
  return raw;
}

/** Sends one command and turns a refusal into its catalogued error. */
async function command<Input>(
  deps: SecretsRouteDeps,
  cmd: Command<unknown, SecretReply, Input>,
  body: Input,
): Promise<Extract<SecretReply, { outcome: 'ok' }>> {
  const reply = await sendCommand(deps.bus, cmd, body, { timeoutMs: deps.commandTimeoutMs });
  if (reply.outcome === 'refused') throw new ApiError(reply.error, { detail: reply.detail });
  return reply;
}

const actorOf = (req: ApiRequest) => ({
  id: req.actor?.id ?? 'anonymous',
  kind: req.actor?.kind ?? 'anonymous',
});

/** Read-your-writes: the entry for `name` has reached `revision` in this node's read model. */
const reached = (name: string, revision: number) => (state: SecretsState) =>
  (state.entries.get(name)?.revision ?? 0) >= revision;

function getOne(deps: SecretsRouteDeps, req: ApiRequest): ApiReply {
  const name = requireName(req);
  const reveal = readReveal(req);
  const keyring = reveal ? requireKeyring(deps) : null;
  const record = secretRecord(deps.state(), name);
  if (!record)
    throw new ApiError('not_found', {
      detail: `no secret named ${name}`,
      hint: 'GET /secrets (or svc secrets list) lists the stored names; names are case-sensitive.',
    });
  if (!keyring) return { status: 200, body: metaOfSecret(record) };
  let value: Buffer;
  try {
    value = open(keyring, record.sealed, secretAad(name));
  } catch {
    throw new ApiError('unreadable_secret', {
      detail: `The secret ${name} is sealed under key ${record.key_id}, which does not open it on this node.`,
      extra: { key_id: record.key_id },
    });
  }
  // Who read which name, never what.
  req.log.info({ event: 'secret_revealed', name, operator: req.actor?.id ?? null }, 'secret revealed');
  return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: value };
}

function beforePut(deps: SecretsRouteDeps, req: RequestHead): void {
  assertWriter(deps, req);
  requireName(req);
  readSource(req);
  requireKeyring(deps);
}

async function put(deps: SecretsRouteDeps, req: ApiRequest): Promise<ApiReply> {
  const name = requireName(req);
  const reply = await command(deps, Commands.secrets.put, {
    name,
    value_b64: req.body.toString('base64'),
    source: readSource(req),
    actor: actorOf(req),
  });
  await deps.until(reached(name, reply.revision), 5_000);
  return { status: 200, body: reply.secret };
}

async function remove(deps: SecretsRouteDeps, req: ApiRequest): Promise<ApiReply> {
  const name = requireName(req);
  const reply = await command(deps, Commands.secrets.delete, { name, actor: actorOf(req) });
  if (reply.removed) await deps.until(reached(name, reply.revision), 5_000);
  return { status: 200, body: { removed: reply.removed ?? false } };
}

function beforeRekey(deps: SecretsRouteDeps, req: RequestHead): void {
  const keyring = requireKeyring(deps);
  const keyId = singleParam(req, 'key_id');
  if (keyId !== null && keyId !== keyring.activeKeyId) {
    throw new ApiError('key_not_active', {
      detail: `Records are re-sealed under the active key ${keyring.activeKeyId}; ${JSON.stringify(keyId.slice(0, 64))} is not it.`,
      extra: { active_key_id: keyring.activeKeyId },
    });
  }
}

async function rekey(deps: SecretsRouteDeps, req: ApiRequest): Promise<ApiReply> {
  const keyId = singleParam(req, 'key_id');
  const reply = await command(deps, Commands.secrets.rekey, {
    ...(keyId !== null ? { key_id: keyId } : {}),
    actor: actorOf(req),
  });
  const moved = reply.moved ?? [];
  await deps.until(
    (state) =>
      moved.every((name) => reached(name, 1)(state) && secretRecord(state, name)?.key_id === reply.key_id),
    5_000,
  );
  return { status: 200, body: { key_id: reply.key_id, moved, unreadable: reply.unreadable ?? [] } };
}

export function secretsRoutes(deps: SecretsRouteDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/secrets',
      query: [],
      handler: () => ({ status: 200, body: { secrets: listSecrets(deps.state()) } }),
    },
    { method: 'GET', pattern: '/secrets/:name', query: ['reveal'], handler: (req) => getOne(deps, req) },
    {
      method: 'PUT',
      pattern: '/secrets/:name',
      query: ['source'],
      maxBodyBytes: SECRET_VALUE_MAX_BYTES,
      tooLargeHint:
        'A secret value is at most 64 KiB (65536 bytes); store the credential itself (a key or token), not a whole file or bundle.',
      beforeBody: (req) => beforePut(deps, req),
      handler: (req) => put(deps, req),
    },
    {
      method: 'DELETE',
      pattern: '/secrets/:name',
      query: [],
      beforeBody: (req) => {
        assertWriter(deps, req);
        requireName(req);
      },
      handler: (req) => remove(deps, req),
    },
    {
      method: 'POST',
      pattern: '/secrets/rekey',
      query: ['key_id'],
      beforeBody: (req) => beforeRekey(deps, req),
      handler: (req) => rekey(deps, req),
    },
  ];
}
