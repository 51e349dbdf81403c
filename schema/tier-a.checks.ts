/**
 * The Tier A file's rules between fields and its keyring's (tier-a.ts runs them beside the shape check).
 */
import { listRefs } from './env-refs.js';
import type { Problem } from './problems.js';
import { ReservedActor, reservedActorWhy } from './reserved-actors.js';
import {
  listAt,
  NODE_ID,
  nodeIdGrammar,
  numberText,
  QueueType,
  SandboxIsolation,
  SandboxNetwork,
  valueAt,
} from './tier-a.shared.js';

/**
 * The shortest operator token a node serves (the spec leaves the format open): a bearer is the whole credential,
 * so a few characters are guessed; 16 is what a password manager or `openssl rand -hex 8` gives at the least.
 */
const MIN_TOKEN_LENGTH = 16;

const isReserved = (id: string): id is ReservedActor => Object.values<string>(ReservedActor).includes(id);

/**
 * Why a token id may not be taken, or null. svc records its own actors (reserved-actors.ts, and the node by
 * its id) in fields that carry operator ids with no kind beside them, so a token holding one writes as svc.
 */
function reservedIdProblem(
  fileNodeId: unknown,
  envNodeId: string | undefined,
): (id: string) => string | null {
  const [nodeId, from] =
    typeof fileNodeId === 'string'
      ? [fileNodeId, 'node.id']
      : envNodeId
        ? [envNodeId, 'from SVC_NODE_ID']
        : ['node-0', 'node.id unset: the default'];
  return (id) => {
    if (isReserved(id)) return `${id} is reserved: ${reservedActorWhy[id]}; give the token another id`;
    if (id === nodeId)
      return `${id} is this node's id (${from}), the actor its own writes are recorded as; give the token another id`;
    return null;
  };
}

/**
 * Rules between fields. They read the file loosely (it may have failed its shape check) so every
 * problem is listed at once; `raw` is the file before substitution, so messages name `${VAR}`s,
 * never values.
 */
export function crossCheck(file: unknown, raw: unknown, offline: boolean, envNodeId?: string): Problem[] {
  const problems: Problem[] = [];
  // The fallback is held to the file's grammar: a `.` or a space broke the node's subjects midway through its start.
  if (valueAt(file, ['node', 'id']) === undefined && envNodeId && !NODE_ID.test(envNodeId)) {
    problems.push({
      path: 'node.id',
      message: `unset, and SVC_NODE_ID is not a ${nodeIdGrammar}; set node.id or fix SVC_NODE_ID`,
    });
  }
  const str = (path: ReadonlyArray<string | number>): string | undefined => {
    const value = valueAt(file, path);
    return typeof value === 'string' ? value : undefined;
  };
  const type = str(['providers', 'queue', 'type']) ?? QueueType.Memory;
  if (type === QueueType.JetStream && !str(['providers', 'queue', 'url'])) {
    problems.push({
      path: 'providers.queue.url',
      message: 'required when providers.queue.type is jetstream',
    });
  }
  if (type === QueueType.JetStreamEmbedded && !str(['stream', 'store_dir'])) {
    problems.push({
      path: 'stream.store_dir',
      message: 'required when providers.queue.type is jetstream-embedded',
    });
  }
  if (type !== QueueType.JetStream) {
    // Only jetstream reads them: a url written with the type left at its default means a fleet was meant,
    // and each node would run alone on its own memory bus. Never the value (a token is a secret).
    for (const key of ['url', 'auth_token'] as const) {
      if (valueAt(file, ['providers', 'queue', key]) === undefined) continue;
      problems.push({
        path: `providers.queue.${key}`,
        message: `read only when providers.queue.type is jetstream, and the type is ${type}; set type: jetstream or remove it`,
      });
    }
  }
  const replicas = numberText(valueAt(file, ['providers', 'queue', 'replicas']));
  if (
    typeof replicas === 'number' &&
    replicas !== 1 &&
    (type === QueueType.Memory || type === QueueType.JetStreamEmbedded)
  ) {
    // One process (memory) or one local server (embedded) keeps one copy: more would be a promise not kept.
    problems.push({
      path: 'providers.queue.replicas',
      message: `must be 1 when providers.queue.type is ${type} (it keeps one copy); replicas need type jetstream on a cluster`,
    });
  }
  const apiPort = numberText(valueAt(file, ['api', 'port']) ?? 8080);
  const publicPort = numberText(valueAt(file, ['api', 'public', 'port']));
  if (publicPort === 0) {
    // Written, so the public routes would move; 0 binds nothing, so they would be served nowhere. Neither
    // reading (unset, or off) is safe to guess: the file says which.
    problems.push({
      path: 'api.public.port',
      message:
        '0 is not a port to serve the public routes on: give a port, or remove api.public to serve them on api.port',
    });
  } else if (typeof publicPort === 'number' && publicPort === apiPort) {
    problems.push({ path: 'api.public.port', message: 'must differ from api.port' });
  }
  const seen = new Set<string>();
  const reserved = reservedIdProblem(valueAt(file, ['node', 'id']), envNodeId);
  // Value → the first id holding it, compared trimmed as the guard compares: a token shared by two ids
  // always authenticates as the first, so the second could never act (nor be a company writer).
  const holders = new Map<string, string>();
  listAt(file, ['api', 'auth', 'tokens']).forEach((entry, i) => {
    const id = valueAt(entry, ['id']);
    const token = valueAt(entry, ['token']);
    if (typeof id === 'string') {
      if (seen.has(id))
        problems.push({ path: `api.auth.tokens[${i}].id`, message: `duplicate token id ${id}` });
      seen.add(id);
      // An offline command serves no token, so none of its ids can write as svc.
      const why = offline ? null : reserved(id);
      if (why !== null) problems.push({ path: `api.auth.tokens[${i}].id`, message: why });
    }
    const value = typeof token === 'string' ? token.trim() : '';
    if (typeof id === 'string' && value !== '') {
      const first = holders.get(value);
      if (first === undefined) holders.set(value, id);
      else if (first !== id)
        problems.push({
          path: `api.auth.tokens[${i}].token`,
          message: `same value as token id ${first}: ids ${first} and ${id} share one token, which always authenticates as ${first}; give each id its own`,
        });
    }
    if (!offline && typeof token === 'string' && value.length < MIN_TOKEN_LENGTH) {
      const written = valueAt(raw, ['api', 'auth', 'tokens', i, 'token']);
      const refs = typeof written === 'string' ? listRefs(written) : [];
      const named = refs.map((r) => `\${${r}}`).join(', ');
      const message =
        value === ''
          ? `resolves empty${refs.length > 0 ? ` (${named} unset or empty)` : ''}; an empty bearer never authenticates`
          : `must be at least ${MIN_TOKEN_LENGTH} characters${refs.length > 0 ? ` (from ${named})` : ''}: a short bearer is guessed; use a long random value (\`openssl rand -hex 24\`)`;
      problems.push({ path: `api.auth.tokens[${i}].token`, message });
    }
  });
  listAt(file, ['api', 'auth', 'company_writers']).forEach((id, i) => {
    if (typeof id === 'string' && !seen.has(id)) {
      problems.push({
        path: `api.auth.company_writers[${i}]`,
        message: `names no token id in api.auth.tokens: ${id}`,
      });
    }
  });
  problems.push(...checkKeyring(file, raw));
  if (
    valueAt(file, ['sandbox', 'network']) === SandboxNetwork.None &&
    (valueAt(file, ['sandbox', 'isolation']) ?? SandboxIsolation.Process) === SandboxIsolation.Process
  ) {
    // A process run shares the node's network: a promise of none would not be kept.
    problems.push({
      path: 'sandbox.network',
      message: 'none needs sandbox.isolation: bubblewrap (a process run shares the node’s network)',
    });
  }
  const roles = listAt(file, ['node', 'roles']);
  if (new Set(roles).size !== roles.length)
    problems.push({ path: 'node.roles', message: 'lists a role twice' });
  return problems;
}

function checkKeyring(file: unknown, raw: unknown): Problem[] {
  const problems: Problem[] = [];
  const ids = new Set<string>();
  const keys = listAt(file, ['secrets', 'keys']);
  keys.forEach((key, i) => {
    const id = valueAt(key, ['id']);
    const material = valueAt(key, ['material']);
    if (typeof id === 'string') {
      if (ids.has(id)) problems.push({ path: `secrets.keys[${i}].id`, message: `duplicate key id ${id}` });
      ids.add(id);
    }
    if (typeof material === 'string' && !isBase64Of32Bytes(material)) {
      // Name the variable when the material came from one: an unset one is the usual cause.
      const written = valueAt(raw, ['secrets', 'keys', i, 'material']);
      const refs = typeof written === 'string' ? listRefs(written) : [];
      const from =
        refs.length > 0
          ? ` (from ${refs.map((r) => `\${${r}}`).join(', ')}${material.trim() === '' ? ', unset or empty' : ''})`
          : '';
      problems.push({
        path: `secrets.keys[${i}].material`,
        message: `must be base64 of exactly 32 bytes${from}`,
      });
    }
  });
  const active = valueAt(file, ['secrets', 'active_key_id']);
  if (keys.length > 0 && !active) {
    problems.push({ path: 'secrets.active_key_id', message: 'required when secrets.keys is not empty' });
  } else if (typeof active === 'string' && !ids.has(active)) {
    problems.push({ path: 'secrets.active_key_id', message: `names no key in secrets.keys: ${active}` });
  }
  return problems;
}

function isBase64Of32Bytes(text: string): boolean {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || trimmed.length % 4 !== 0) return false;
  return Buffer.from(trimmed, 'base64').length === 32;
}
