/**
 * The closed catalogue of API error codes (spec "Errors"): every code once, with its status, a default
 * detail, a hint, and whether sending the same request again can help. `ops/errors.md` lists the same
 * codes with a "how to solve" column; `test/schema/errors.unit.test.ts` keeps the two in step.
 *
 * A code the spec uses with more than one status (`no_active_revision`: 404 on a read, 409 on a write,
 * 412 on an `If-Match`) has one base use and named `variants`, so a caller picks a use, never a status.
 */
import { z } from 'zod';
import { workErrors } from './errors.work.js';
import type { ErrorEntry, ErrorStatus, ErrorUse } from './errors.types.js';

const documentHint = 'Fix the entries listed in `problems` and send the document again.';

export const errorCatalogue = {
  unreadable_body: {
    status: 400,
    when: 'request body not delivered within its deadline, or truncated',
    detail: 'The request body could not be read completely.',
    hint: 'Send the whole body promptly (30 s).',
    retryable: true,
  },
  unsupported_transfer_coding: {
    status: 400,
    when: 'a `Transfer-Encoding` other than `chunked` alone: a final coding other than `chunked` (RFC 9112 6.1: 400), or a coding before it the node does not implement (`gzip, chunked`; RFC 9112 would have 501, outside this catalogue); answered before the body is read, connection closed',
    detail: 'The request names a Transfer-Encoding this node does not read.',
    hint: 'Send the body uncompressed, with a `Content-Length` or with `Transfer-Encoding: chunked` alone.',
    retryable: false,
  },
  invalid_body: {
    status: 400,
    when: 'document or entity body not parseable, or carrying an unknown field',
    detail: 'The request body is not a valid document.',
    hint: documentHint,
    retryable: false,
  },
  invalid_patch: {
    status: 400,
    when: 'merge patch not parseable or naming unknown keys',
    detail: 'The merge patch cannot be applied.',
    hint: documentHint,
    retryable: false,
  },
  validation_error: {
    status: 400,
    when: 'document parsed but breaks a rule',
    detail: 'The document is invalid.',
    hint: documentHint,
    retryable: false,
  },
  summary_required: {
    status: 400,
    when: 'write without `X-Summary` and without `_summary`',
    detail: 'A storing write needs a summary.',
    hint: 'Add an `X-Summary` header or a `_summary` key in the body.',
    retryable: false,
  },
  invalid_query: {
    status: 400,
    when: "`dry_run` other than `true`/`false`; `/config`'s `format`, a secret's `reveal` or `source` outside its set; a fleet removal whose `confirm` does not repeat the id, or `force` other than `true`/`false`; a single-valued parameter of a `/secrets`, `/setup`, `/config` or fleet removal route given more than once",
    detail: 'A query parameter has a value outside its set.',
    hint: 'Give the parameter named in `detail` one of the values the route takes, once.',
    retryable: false,
  },
  identity_mismatch: {
    status: 400,
    when: 'entity body identity differs from the path',
    detail: 'The body names another entity than the path.',
    hint: 'Make the identity in the body equal the id in the path, or edit the full document to rename.',
    retryable: false,
  },
  not_creatable: {
    status: 400,
    when: 'create-only write of a seat or unit',
    detail: 'Seats and units cannot be created through an entity write.',
    hint: 'Add the seat or unit with a full-document PUT or PATCH of `/config`.',
    retryable: false,
  },
  conflicting_preconditions: {
    status: 400,
    when: '`If-None-Match: *` with `If-Match` on an entity PUT',
    detail: '`If-None-Match: *` and `If-Match` cannot be combined.',
    hint: 'Send `If-None-Match: *` to create, or `If-Match` to replace, not both.',
    retryable: false,
  },
  unsupported_precondition: {
    status: 400,
    when: 'a write sent with `If-Match` or `If-None-Match` on a route that keeps no version to compare them with',
    detail: 'This route keeps no version, so it cannot check the precondition sent.',
    hint: 'Send the request without it; ops/http.md lists the routes that take If-Match and If-None-Match.',
    retryable: false,
  },
  bad_params: {
    status: 400,
    when: 'a bad parameter of a question or of a read route adapting one (`/events`: a value outside its set, half a cursor; one the route does not read; one given twice); unknown type or bad parameter on a work route; invalid `archived` or `sort`; a list `limit` or `offset` out of range; a fleet removal naming no possible node id',
    detail: 'A parameter is unknown or out of range.',
    hint: 'Check the parameter against the route description.',
    retryable: false,
  },
  invalid_name: {
    status: 400,
    when: 'secret name outside the grammar',
    detail: 'Secret names are letters, digits and underscores, starting with a letter or underscore.',
    hint: 'Rename the secret, for example `TRACKER_TOKEN`.',
    retryable: false,
  },
  op_id_invalid: {
    status: 400,
    when: 'retry id not in grammar, over 128 bytes, or not visible ASCII',
    detail: 'The op_id must be at most 128 bytes of visible ASCII.',
    hint: 'Use a short random id such as a UUID.',
    retryable: false,
  },
  invalid_token: {
    status: 401,
    when: 'missing or wrong bearer on a guarded route; wrong webhook signature',
    detail: 'The credential is missing or not accepted.',
    hint: 'Send `Authorization: Bearer <token>` with a token listed in `api.auth.tokens`.',
    retryable: false,
  },
  config_managed: {
    status: 403,
    when: 'credential not in `company_writers`',
    detail: 'The company document is managed; this credential may not change it.',
    hint: 'Change the document through its managing pipeline, or use a token listed in `api.auth.company_writers`.',
    retryable: false,
  },
  no_route: {
    status: 404,
    when: 'path not served (including public routes asked of the admin listener)',
    detail: 'No route serves this path.',
    hint: 'Check the method and path.',
    retryable: false,
  },
  no_active_revision: {
    status: 404,
    when: 'config read before the first revision',
    detail: 'No configuration revision is active yet.',
    hint: 'Store the first revision with `PUT /config`.',
    retryable: false,
    variants: {
      on_write: {
        status: 409,
        when: 'PATCH, entity write or reload with nothing active',
        detail: 'There is no active revision to change.',
        hint: 'Store the first revision with a full `PUT /config`.',
      },
      on_if_match: {
        status: 412,
        when: '`If-Match` names a revision while none is active',
        detail: '`If-Match` names a revision, but none is active.',
        hint: 'Nothing is active to match: send it again without `If-Match` (with `If-None-Match: *` to store it only while none is).',
      },
    },
  },
  not_found: {
    status: 404,
    when: 'revision, event or secret absent',
    detail: 'The resource does not exist.',
    hint: 'Check the id or name in the path; the collection it belongs to lists what exists.',
    retryable: false,
  },
  no_such_entity: {
    status: 404,
    when: 'entity PUT of an id not carried',
    detail: 'The active document carries no entity with this id.',
    hint: 'Create it with a full-document write, or with `If-None-Match: *` where the kind allows it.',
    retryable: false,
    variants: {
      on_setup_pass: {
        status: 409,
        when: '`POST /setup/integrations/{kind}/provision` or `/check` of a kind whose block the active document does not carry (not connected); no pass runs',
        detail:
          'The active document carries no block for this integration: there is nothing to provision or check.',
        hint: 'Connect it first with `POST /setup/integrations/{kind}/inputs`.',
      },
    },
  },
  unknown_tool: {
    status: 404,
    when: '`/operator/act/{tool}` names no write tool of the operator catalogue',
    detail: 'No write tool of that name is served here.',
    hint: 'List the tools with `GET /viewer` (`acts`) or over `/operator/mcp`.',
    retryable: false,
  },
  unbound_token: {
    status: 403,
    when: '`/operator/mcp` or `/operator/act` called with a token no human seat is bound to (`contact.operator_id`)',
    detail: 'This token acts as no person.',
    hint: "Set `contact.operator_id` of your human seat to this token's id (`GET /access` shows bindings).",
    retryable: false,
  },
  guard_disabled: {
    status: 403,
    when: '`/operator/mcp`, `/operator/act`, `/work/retention*`, a purge or a file write called while `api.auth.disabled` is true (the caller is anonymous)',
    detail: 'With the guard disabled the caller is anonymous and acts as no person.',
    hint: 'Turn the guard on (`api.auth`) and call with a token bound to your human seat.',
    retryable: false,
  },
  cross_origin: {
    status: 403,
    when: '`/ws/stream` upgrade from a browser page whose `Origin` is not the host the request was sent to',
    detail: 'The stream is not opened to pages of another origin.',
    hint: 'Open the dashboard served by this node; behind a proxy, pass the Host the browser used.',
    retryable: false,
  },
  unknown_query: {
    status: 404,
    when: 'question with no registered source on this node',
    detail: 'No source answers this question on this node.',
    hint: 'Check the question name, and that the backend it needs is enabled.',
    retryable: false,
  },
  method_not_allowed: {
    status: 405,
    when: 'path under another method, with `Allow`',
    detail: 'This path is served under other methods.',
    hint: 'Use a method listed in the `Allow` header.',
    retryable: false,
  },
  revision_advanced: {
    status: 409,
    when: 'stale `If-Match` or lost compare-and-set; carries `stored_revision_id`',
    detail: 'The active revision moved on before this write landed.',
    hint: 'Read the active revision again, re-apply your change, and send it with the new `If-Match`.',
    retryable: false,
  },
  unreadable_revision: {
    status: 409,
    when: 'revert to, or a diff with, a revision sealed under a key this node lacks; a PUT, PATCH or entity PUT while the active revision is so sealed (their markers and edits are filled from it)',
    detail: 'The revision is sealed under a key this node does not hold.',
    hint: 'Add the key to `secrets.keys` on this node, or revert to another revision.',
    retryable: false,
  },
  key_not_active: {
    status: 409,
    when: '`POST /secrets/rekey?key_id=` naming a key other than the active one',
    detail: 'Records are always re-sealed under the active key; the key named is not it.',
    hint: 'Set `secrets.active_key_id` to that key in the Tier A file and restart, or leave `key_id` out.',
    retryable: false,
  },
  unreadable_secret: {
    status: 409,
    when: 'reveal of a secret sealed under a key this node lacks, or whose record does not open',
    detail: 'The secret is sealed under a key this node does not hold, or its record does not open.',
    hint: 'Add the key named by `key_id` to `secrets.keys` on this node, or put the value again.',
    retryable: false,
  },
  run_ended: {
    status: 409,
    when: 'cancel of a coding run that already ended done or failed',
    detail: 'The coding run has already ended.',
    hint: 'GET /sandbox-runs shows how it ended; nothing is left to cancel.',
    retryable: false,
  },
  broker_refused: {
    status: 409,
    when: 'peer removal the broker refused or left unanswered (on nats-server 2.9 with accounts, only the system account may remove a peer)',
    detail: 'The broker did not remove the peer.',
    hint: 'Remove the peer with system-account credentials (`nats server raft peer-remove`), see ops/fleet.md.',
    retryable: false,
  },
  already_configured: {
    status: 412,
    when: '`If-None-Match: *` meets an active revision',
    detail: 'A revision is already active.',
    hint: 'Read `GET /config` and write with `If-Match` instead.',
    retryable: false,
  },
  entity_exists: {
    status: 412,
    when: 'create-only entity PUT on an existing id',
    detail: 'An entity with this id already exists.',
    hint: 'Drop `If-None-Match: *` to replace it, or pick another id.',
    retryable: false,
  },
  body_too_large: {
    status: 413,
    when: 'body larger than the route accepts: 25 MiB for webhook deliveries, 8 MiB by default for API requests, less where a route sets it (64 KiB for a secret); refused without reading the rest, `max_bytes` names the limit',
    detail: 'The body is larger than this route accepts.',
    hint: 'Send a smaller body: `max_bytes` names the largest this route accepts.',
    retryable: false,
  },
  unsupported_patch_media_type: {
    status: 415,
    when: 'PATCH in another patch format; `Accept-Patch` header',
    detail: 'Only JSON Merge Patch is accepted.',
    hint: 'Send `Content-Type: application/merge-patch+json`.',
    retryable: false,
  },
  draining: {
    status: 503,
    when: 'node draining; `Retry-After: 30`; body `{error, detail, hint}`',
    detail: 'This node is shutting down and takes no writes.',
    hint: 'Retry after 30 seconds; another node, or this one after restart, will answer.',
    retryable: true,
    retryAfterSeconds: 30,
  },
  overloaded: {
    status: 503,
    when: 'the listener already holds its cap of request-body bytes in flight (64 MiB); the body is not read',
    detail: 'This listener is holding as many request bodies as it may; this one was not read.',
    hint: 'Retry after a few seconds, sending fewer large bodies in parallel.',
    retryable: true,
    retryAfterSeconds: 5,
  },
  outcome_unknown: {
    status: 503,
    when: 'a write whose bus call did not answer in time (the bus lost its server or a stream was electing a leader): it may or may not have taken effect; a config write carries `revision_id`, the revision it tried',
    detail: 'The write was sent but its outcome is unknown: it may or may not have taken effect.',
    // Each route family names how to read its own write back (http/outcome-unknown.ts); this is the rest's.
    hint: 'Read what the write changes back before retrying: it may or may not have taken effect.',
    retryable: true,
    retryAfterSeconds: 5,
  },
  seat_unavailable: {
    status: 503,
    when: 'pause, resume or clear the needs of an agent seat of the active document that no node answers for right now (it is moving between nodes, or no node with the seats role runs); `Retry-After: 5`',
    detail: 'No node answers for this agent seat right now; nothing was done.',
    hint: 'Retry in a few seconds: the seat is moving between nodes or waiting for a seats node (GET /fleet shows who holds it).',
    retryable: true,
    retryAfterSeconds: 5,
  },
  no_keyring: {
    status: 503,
    when: 'seal/open route with no `secrets.keys`',
    detail: 'This node has no keyring, so it can neither seal nor open secrets.',
    hint: 'Configure `secrets.keys` and `secrets.active_key_id` in the Tier A file and restart.',
    retryable: false,
  },
  setup_unavailable: {
    status: 503,
    when: "`POST /setup/codehost-a-app/{handle}` on a node with a keyring but no setup surface for code-host apps (the code host's API and web locations unset), or without `SVC_PUBLIC_BASE_URL` (the manifest's hook and return addresses)",
    detail: 'This node has no setup surface for code-host apps.',
    hint: 'Set SVC_CODEHOST_A_API_URL and SVC_CODEHOST_A_WEB_URL, then restart.',
    retryable: false,
  },
  backup_dir_invalid: {
    status: 400,
    when: '`POST /backup` whose `dir` is missing, relative, inside the store, not a directory, not empty, or not writable',
    detail: 'The backup directory cannot be used.',
    hint: 'Name an absolute path on the engine host to an empty directory (or one that does not exist yet) that the node can write.',
    retryable: false,
  },
  backup_failed: {
    status: 503,
    when: '`POST /backup` whose copy failed after it started (disk full, I/O error, bus unreachable); what it wrote is removed',
    detail: 'The backup failed; nothing was kept in the directory.',
    hint: 'Read the cause in `detail` (also in `GET /backups`), fix it, and request the backup again.',
    retryable: true,
  },
  ...workErrors,
} as const satisfies Record<string, ErrorEntry>;

type Catalogue = typeof errorCatalogue;

export const ErrorCode = z.enum(Object.keys(errorCatalogue) as [keyof Catalogue, ...(keyof Catalogue)[]]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The named variants of a code (`never` for a code with one use). */
export type ErrorVariant<C extends ErrorCode> = Catalogue[C] extends { readonly variants: infer V }
  ? keyof V & string
  : never;

/** The use of `code` under `variant` (the base use when no variant is named). */
export function errorUse(code: ErrorCode, variant?: string): ErrorUse {
  const entry: ErrorEntry = errorCatalogue[code];
  if (variant === undefined) return entry;
  const use = entry.variants?.[variant];
  if (use === undefined) throw new RangeError(`error code ${code} has no variant ${variant}`);
  return use;
}

/** Every (code, status) pair the catalogue can answer with, variants included. */
export function errorStatuses(): ReadonlyArray<{ code: ErrorCode; status: ErrorStatus; variant?: string }> {
  return ErrorCode.options.flatMap((code) => {
    const entry: ErrorEntry = errorCatalogue[code];
    const variants = Object.entries(entry.variants ?? {}).map(([variant, use]) => ({
      code,
      status: use.status,
      variant,
    }));
    return [{ code, status: entry.status }, ...variants];
  });
}

/** The body of every answer carrying a code: `{error, detail, hint}` plus code-specific fields. */
export const ErrorBody = z.looseObject({ error: ErrorCode, detail: z.string(), hint: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;
