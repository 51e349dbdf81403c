/**
 * Setup writes (spec "Secrets and setup routes", write rule 10): inputs (credentials sealed, the rest
 * patched into a new revision), disconnect, and the provisioning pass (`provision`, read-only `check`).
 */
import { randomBytes } from 'node:crypto';
import {
  commandCaller,
  ErrorCode,
  InputsRefused,
  NoDocument,
  planInputs,
  SetupInputs,
  segmentsOf,
  valueAt,
  withValue,
  type IntegrationCommand,
  type IntegrationReply,
  type IntegrationVerb,
  type KindSpec,
  type PassMode,
  type Requirement,
} from '../../../schema/index.js';
import { ApiError, errorReply } from '../../api-error.js';
import { fitBody, jsonValue } from '../../json-body.js';
import { assertCompanyWriter } from '../../guard.js';
import type { Actor, ApiReply, ApiRequest } from '../../types.js';
import { agentSeats, readContext, type SetupContext } from './setup.context.js';
import { checkIfMatch, writeDocument, type Stored } from './setup.config-write.js';
import type { SetupRouteDeps } from './setup.deps.js';
import { specOf } from './setup.reads.js';
import { namedSeal, sealAfterStore } from './setup.seal.js';

/** A fresh shared secret from the CSPRNG; codehost-b takes the standard-webhooks `whsec_` form. */
export function mint(spec: KindSpec, r: Requirement): string {
  const bytes = randomBytes(32);
  return spec.key === 'codehost-b' && r.field === 'signing_secret'
    ? `whsec_${bytes.toString('base64')}`
    : bytes.toString('base64url');
}

// With the guard off the actor is anonymous (spec "Authentication" 5): what it writes says so, as `/config`'s do.
const actorOf = (req: ApiRequest): Actor => req.actor ?? { id: 'anonymous', kind: 'anonymous' };

/** The `${VAR}` an `unresolved_reference` warning names, else null. */
function unresolvedName(warning: unknown): string | null {
  if (typeof warning !== 'object' || warning === null) return null;
  const { kind, to } = warning as { kind?: unknown; to?: unknown };
  return kind === 'unresolved_reference' && typeof to === 'string' ? to : null;
}

/** More fields than any kind declares; past it a body is refused whole, not field by field. */
const INPUTS_MAX_FIELDS = 64;
/** Every credential of the largest kind at 64 KiB, JSON-escaped, fits. */
export const INPUTS_MAX_BYTES = 1024 * 1024;

/**
 * The revision the inputs were read against: the body's `if_match` or an `If-Match` header, which is
 * honoured alike rather than ignored; both naming different revisions is refused, nothing sealed.
 */
function inputsIfMatch(req: ApiRequest, body: string | undefined): string | undefined {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '') return body;
  if (body !== undefined && body.trim() !== header.trim())
    throw new ApiError('bad_params', {
      detail:
        "The If-Match header and the body's if_match name different revisions; nothing was stored or sealed.",
      hint: 'Send the revision read once, in either.',
    });
  return header;
}

/** A `values` or `generate` past the limit: one problem, where checking each entry would answer megabytes. */
function checkCounts(raw: unknown): void {
  if (typeof raw !== 'object' || raw === null) return;
  const { values, generate } = raw as { values?: unknown; generate?: unknown };
  const counts: Array<[string, number]> = [
    ['values', typeof values === 'object' && values !== null ? Object.keys(values).length : 0],
    ['generate', Array.isArray(generate) ? generate.length : 0],
  ];
  for (const [at, count] of counts) {
    if (count <= INPUTS_MAX_FIELDS) continue;
    throw new ApiError('invalid_body', {
      detail: `${at} names more fields than any integration has.`,
      hint: 'GET /setup/integrations/{kind} lists the fields of a kind.',
      extra: {
        problems: [
          { path: at, segments: [at], kind: 'out_of_range', message: `at most ${INPUTS_MAX_FIELDS} fields` },
        ],
      },
    });
  }
}

function readInputs(req: ApiRequest): SetupInputs {
  // A repeated field would lose a value silently, as in a configuration document: refused the same way.
  const raw = jsonValue(req, { uniqueKeys: true });
  checkCounts(raw);
  return fitBody(raw, SetupInputs, { detail: 'The body is not {if_match, values, generate}.' });
}

function plan(spec: KindSpec, inputs: SetupInputs, ctx: SetupContext): ReturnType<typeof planInputs> {
  try {
    return planInputs(
      spec,
      inputs,
      ctx.document,
      // The one handle field (chat's `seat`) picks whose own app the credentials are: an agent's.
      agentSeats(ctx),
      (r) => mint(spec, r),
    );
  } catch (error) {
    if (error instanceof InputsRefused) {
      throw new ApiError(error.code, {
        detail: `The inputs for ${spec.key} are refused.`,
        extra: { problems: error.problems },
      });
    }
    if (error instanceof NoDocument) throw new ApiError('no_active_revision', { variant: 'on_write' });
    throw error;
  }
}

export async function postInputs(deps: SetupRouteDeps, req: ApiRequest): Promise<ApiReply> {
  // 1. managed document: refuse before anything is read or stored
  assertCompanyWriter(deps.auth, req.actor);
  const spec = specOf(req);
  const inputs = readInputs(req);
  const fields = [...Object.keys(inputs.values), ...inputs.generate];
  if (fields.length === 0) {
    throw new ApiError('invalid_body', {
      detail: 'The body names no field: nothing would change.',
      hint: `Send values {field: value} or generate [field]; GET /setup/integrations/${spec.key} lists the fields.`,
      extra: {
        problems: [{ path: 'values', segments: ['values'], kind: 'missing', message: 'names no field' }],
      },
    });
  }
  // 2. without a keyring nothing can be sealed
  const sealing = spec.requirements.some((r) => r.kind === 'secret' && fields.includes(r.field));
  if (sealing && !deps.hasKeyring) {
    throw new ApiError('no_keyring', {
      detail: 'Credentials are sealed into the secret store, which needs secrets.keys.',
    });
  }
  // 3. plan against the revision read; a stale one is refused before anything is sealed
  const ctx = await readContext(deps);
  const ifMatch = checkIfMatch(inputsIfMatch(req, inputs.if_match), ctx.record?.revision_id ?? null);
  const planned = plan(spec, inputs, ctx);
  const summary = `setup ${spec.key}: ${fields.join(', ') || 'no change'}`;
  const base = ctx.record?.revision_id;
  // 4. validate the patched document before sealing, so a refused document seals nothing
  if (planned.document !== null && base !== undefined) {
    const write = { document: planned.document, basisRevisionId: base, actor: actorOf(req), summary };
    await writeDocument(deps, { ...write, dryRun: true, ...(ifMatch ? { ifMatch } : {}) });
  }
  // 5. store the revision (compare-and-set on the one read), then seal what it references: a write that
  //    loses the race answers 409 having sealed nothing, so it never replaces the winner's credential.
  const stored =
    planned.document !== null && base !== undefined
      ? await writeDocument(deps, {
          document: planned.document,
          basisRevisionId: base,
          actor: actorOf(req),
          summary,
          dryRun: false,
          ...(ifMatch ? { ifMatch } : {}),
        })
      : null;
  // 6. a seal failing after that rolls the revision back and answers the seal's refusal (setup.seal.ts)
  const { sealed, unsealed } = await sealAfterStore(
    deps,
    req,
    { kind: spec.key, actor: actorOf(req), document: ctx.document, stored },
    planned.seals,
  );
  // Sealed now: a name the revision was checked against before its value was in the store resolves.
  const sealedNames = new Set(sealed.map((s) => s.name));
  const warnings = (stored?.warnings ?? []).filter((w) => !sealedNames.has(unresolvedName(w) ?? ''));
  req.log.info(
    {
      event: 'setup_inputs',
      kind: spec.key,
      sealed: sealed.map((s) => s.name),
      written: planned.written,
    },
    'setup inputs applied',
  );
  return {
    status: stored ? 201 : 200,
    body: {
      kind: spec.key,
      revision_id: stored?.revision_id ?? null,
      epoch: stored?.epoch ?? null,
      warnings,
      written: planned.written,
      sealed: sealed.map(namedSeal),
      ...(unsealed.length > 0 ? { unsealed: unsealed.map(namedSeal) } : {}),
    },
  };
}

/** Sends one command to the kind's integration actor; a refusal is answered as the actor rendered it. */
async function command(
  deps: SetupRouteDeps,
  verb: IntegrationVerb,
  body: IntegrationCommand,
): Promise<Exclude<IntegrationReply, { outcome: 'refused' }> | ApiReply> {
  const reply = await deps.command(verb, body);
  if (reply.outcome !== 'refused') return reply;
  const { status, error, detail, hint, extra } = reply.refusal;
  // A catalogued code keeps its headers (`Retry-After: 5` on `outcome_unknown`), which the actor's reply drops.
  const code = ErrorCode.safeParse(error);
  const headers = code.success ? errorReply(code.data).headers : {};
  return { status, headers, body: { ...extra, error, detail, hint } };
}
const isReply = (value: object): value is ApiReply => 'status' in value;

/**
 * The actor ran no pass: the kind has no block in the active document, so there is nothing to provision or
 * check (a pass would only fail on its first missing setting). The refusal says how to connect it.
 */
async function notConnected(deps: SetupRouteDeps, spec: KindSpec): Promise<ApiError> {
  const connect = `POST /setup/integrations/${spec.key}/inputs`;
  const ctx = await readContext(deps);
  if (ctx.record === null)
    return new ApiError('no_active_revision', {
      variant: 'on_write',
      detail: `No configuration revision is active, so ${spec.key} is not connected: there is nothing to provision or check.`,
      hint: `Store the first revision with a full \`PUT /config\`, then connect ${spec.key} with \`${connect}\`.`,
    });
  return new ApiError('no_such_entity', {
    variant: 'on_setup_pass',
    detail: `The active document carries no ${spec.block_path ?? spec.key}: ${spec.key} is not connected, so there is nothing to provision or check.`,
    hint: `Connect it first with \`${connect}\` (GET /setup/integrations/${spec.key} lists what it needs).`,
  });
}

export async function runPass(deps: SetupRouteDeps, req: ApiRequest, mode: PassMode): Promise<ApiReply> {
  // A provision may store a revision (seat tokens): on a managed document it is a writer's gesture.
  if (mode === 'provision') assertCompanyWriter(deps.auth, req.actor);
  const spec = specOf(req);
  // The kind's actor decides and runs the pass (and stores the seat tokens a provision minted).
  const reply = await command(deps, mode === 'provision' ? 'provision' : 'check', {
    kind: spec.key,
    ...commandCaller(actorOf(req)),
  });
  if (isReply(reply)) return reply;
  if (reply.outcome !== 'ran') throw await notConnected(deps, spec);
  // Read-your-writes: the run is in this node's history before the answer names it.
  await deps.runs.sync();
  return { status: 200, body: { ...reply.run, revision_id: reply.revision_id } };
}

/**
 * The names a kind keeps in the secret store only (no document field references them: the monitor's
 * token, the wiki's cloud token): nothing else can be using them, so they go with the kind.
 */
const storeOnlySecrets = (spec: KindSpec): string[] =>
  spec.requirements.flatMap((r) => (r.config_path === null && r.secret_name !== null ? [r.secret_name] : []));

/**
 * Removes the kind's store-only secrets; the names removed. After a stored revision a failure is
 * logged and the name reported as left (the disconnect stands), before one it is the answer.
 */
async function unsealStoreOnly(
  deps: SetupRouteDeps,
  req: ApiRequest,
  spec: KindSpec,
  afterRevision: boolean,
): Promise<{ removed: string[]; left: string[] }> {
  const removed: string[] = [];
  const left: string[] = [];
  for (const name of storeOnlySecrets(spec)) {
    try {
      if (await deps.unseal(name, actorOf(req))) removed.push(name);
    } catch (error) {
      if (!afterRevision) throw error;
      req.log.warn(
        { event: 'setup_disconnect_secret_left', kind: spec.key, name, err: error },
        'secret left in the store',
      );
      left.push(name);
    }
  }
  return { removed, left };
}

const REMOVE_ATTEMPTS = 3;

/**
 * Removes the kind's block as a new revision. The third party has already been told by then, so a
 * revision another writer stored during that pass does not refuse the disconnect (its refusal would say
 * nothing was done): the block is removed from the revision active now, keeping that writer's change.
 * `If-Match` was the precondition for starting, checked before the pass.
 */
async function removeBlock(
  deps: SetupRouteDeps,
  req: ApiRequest,
  spec: KindSpec,
  at: ReturnType<typeof segmentsOf>,
  first: SetupContext,
  ifMatch: string | undefined,
): Promise<Stored | null> {
  let ctx = first;
  for (let attempt = 1; ; attempt++) {
    if (ctx.document === null || ctx.record === null) return null;
    // Another writer removed it meanwhile: nothing left to store.
    if (attempt > 1 && valueAt(ctx.document, at) === undefined) return null;
    try {
      return await writeDocument(deps, {
        document: withValue(ctx.document, at, undefined),
        basisRevisionId: ctx.record.revision_id,
        actor: actorOf(req),
        summary: `setup ${spec.key}: disconnect`,
        dryRun: false,
        ...(ifMatch && attempt === 1 ? { ifMatch } : {}),
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'revision_advanced' || attempt >= REMOVE_ATTEMPTS)
        throw error;
      ctx = await readContext(deps);
    }
  }
}

export async function disconnect(deps: SetupRouteDeps, req: ApiRequest): Promise<ApiReply> {
  // 1. managed document: refuse before anything is read or stored
  assertCompanyWriter(deps.auth, req.actor);
  const spec = specOf(req);
  const ctx = await readContext(deps);
  const ifMatch = checkIfMatch(req.headers['if-match'], ctx.record?.revision_id ?? null);
  const at = spec.block_path === null ? null : segmentsOf(spec.block_path);
  // 2. the kind's actor removes at the third party first (a kind with nothing configured runs no
  //    pass); a failure is recorded and reported, and the block goes anyway
  const reply = await command(deps, 'disconnect', { kind: spec.key, ...commandCaller(actorOf(req)) });
  if (isReply(reply)) return reply;
  if (reply.outcome === 'not_configured') {
    // A store-only secret without its block (a wiki cloud token set alone, a monitor token too short to
    // count) is still the kind's: a disconnect leaves none behind.
    const { removed } = await unsealStoreOnly(deps, req, spec, false);
    return {
      status: 200,
      body: { kind: spec.key, removed: false, revision_id: null, remote: null, secrets_removed: removed },
    };
  }
  const run = reply.run;
  await deps.runs.sync();
  // 3. then the block, as a new revision, and only then the kind's store-only secrets: a write that is
  //    refused (a refused document) leaves the kind whole, its secrets included
  const stored = at === null ? null : await removeBlock(deps, req, spec, at, ctx, ifMatch);
  const secrets = await unsealStoreOnly(deps, req, spec, stored !== null);
  return {
    status: 200,
    body: {
      kind: spec.key,
      removed: true,
      revision_id: stored?.revision_id ?? null,
      epoch: stored?.epoch ?? null,
      remote: { run_id: run.id, status: run.status, reason: run.reason },
      secrets_removed: secrets.removed,
      ...(secrets.left.length > 0 ? { secrets_left: secrets.left } : {}),
    },
  };
}
