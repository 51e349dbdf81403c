/**
 * The secret leaves of the company document (spec write rule 7): what redaction masks on reads and
 * what masks are swapped back on writes. Decided by position, so a secret is recognised even where
 * its value is a `${VAR}` reference or has the wrong type.
 */
import type { Segment } from './problems.js';

/** Credential fields of integration blocks and of a seat's own integration credentials. */
const secretFields: ReadonlySet<string> = new Set([
  'token',
  'webhook_secret',
  'signing_secret',
  'bot_token',
  'private_key',
  'api_key',
  'client_secret',
  'password',
]);

/** Credential fields of a notification transport. */
const transportSecrets: ReadonlySet<string> = new Set([
  'url',
  'secret',
  'routing_key',
  'password',
  'auth_token',
]);

/**
 * An env or header name that signals a credential (case-insensitive; `Authorization` included): words
 * anywhere, and `PAT` (personal access token), `DSN` (a connection string with its password), `PASS`
 * (`DB_PASS`) and `SESSION` (a session id is a bearer credential) as whole `_`/`-` separated parts, so
 * `PATH`, `COMPATIBLE` or `BYPASS_CACHE` stay visible; `PWD` only after another part (`DB_PWD`), since `PWD`
 * alone is the shell's working directory.
 */
const signalsSecret =
  /TOKEN|SECRET|KEY|PASSWORD|PASSWD|PASSPHRASE|AUTH|CREDENTIAL|PRIVATE|COOKIE|BEARER|(?:^|[_-])(?:PAT|DSN|PASS|SESSION)(?:$|[_-])|[_-]PWD(?:$|[_-])/i;

export function namesSecret(name: string): boolean {
  return signalsSecret.test(name);
}

const isName = (s: Segment | undefined): s is string => typeof s === 'string';

/** Splits a path inside a seat or a unit (any depth) into the entity and the rest of the path. */
function entityPath(segments: readonly Segment[]): { entity: 'seat' | 'unit'; rest: Segment[] } | null {
  if (segments[0] === 'roles' && typeof segments[1] === 'number') {
    return { entity: 'seat', rest: segments.slice(2) };
  }
  if (segments[0] !== 'units' || typeof segments[1] !== 'number') return null;
  let rest = segments.slice(2);
  while (rest[0] === 'children' && typeof rest[1] === 'number') rest = rest.slice(2);
  if (rest[0] === 'roles' && typeof rest[1] === 'number') return { entity: 'seat', rest: rest.slice(2) };
  return { entity: 'unit', rest };
}

/** Every value of a seat's or a unit's `mcp_env` is a credential. */
const isMcpEnvValue = (rest: readonly Segment[]): boolean =>
  rest.length === 3 && rest[0] === 'mcp_env' && isName(rest[1]) && isName(rest[2]);

function seatSecret(rest: readonly Segment[]): boolean {
  if (isMcpEnvValue(rest)) return true;
  if (rest.length === 3 && rest[0] === 'integrations' && isName(rest[2])) return secretFields.has(rest[2]);
  if (rest[0] !== 'sandbox') return false;
  if (rest.length === 2) return rest[1] === 'api_key';
  return rest.length === 3 && rest[1] === 'env' && isName(rest[2]) && namesSecret(rest[2]);
}

/**
 * True when `segments` names a secret leaf: LLM `api_keys` items, embeddings and sandbox `api_key`,
 * integration tokens and secrets, notification transports' `url`, `secret`, `routing_key`, `password` and `auth_token`, every seat and unit `mcp_env` value, a seat's chat and code-host
 * credentials, and tool-server `env`/`headers` values whose name signals a secret.
 *
 * @example isSecretPath(['providers', 'llm', 'main', 'api_keys', 0]) // true
 */
export function isSecretPath(segments: ReadonlyArray<Segment>): boolean {
  const [head, a, b, c, d] = segments;
  switch (head) {
    case 'providers':
      if (a === 'embeddings') return segments.length === 3 && b === 'api_key';
      return segments.length === 5 && a === 'llm' && isName(b) && c === 'api_keys' && typeof d === 'number';
    case 'integrations':
      return segments.length === 3 && isName(a) && isName(b) && secretFields.has(b);
    case 'notification_transports':
      // A hook URL often carries its token in the path (chat incoming hooks), an SMTP URL its login.
      return segments.length === 3 && isName(a) && isName(b) && transportSecrets.has(b);
    case 'mcp_servers':
      return (
        segments.length === 4 &&
        typeof a === 'number' &&
        (b === 'env' || b === 'headers') &&
        isName(c) &&
        namesSecret(c)
      );
    case 'roles':
    case 'units': {
      const found = entityPath(segments);
      if (found === null) return false;
      return found.entity === 'seat' ? seatSecret(found.rest) : isMcpEnvValue(found.rest);
    }
    default:
      return false;
  }
}

/** Every string leaf of a parsed document with its location (for secret-aware checks). */
export function* stringLeaves(value: unknown, at: Segment[] = []): Generator<[Segment[], string]> {
  if (typeof value === 'string') yield [at, value];
  else if (Array.isArray(value))
    for (const [i, item] of value.entries()) yield* stringLeaves(item, [...at, i]);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* stringLeaves(item, [...at, key]);
  }
}
