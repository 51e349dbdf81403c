/**
 * Setup writes (spec "Secrets and setup routes", write rule 10): inputs (credentials sealed, the rest
 * patched into a new revision), disconnect, and the provisioning pass (`provision`, read-only `check`).
 */
import { randomBytes } from 'node:crypto';
import {
  InputsRefused,
  listReferences,
  NoDocument,
  planInputs,
  SetupInputs,
  substituteDeep,
  valueAt,
  seatSecretName,
  seatSegments,
  segmentsOf,
  withValue,
  type KindSpec,
  type PassMode,
  type Requirement,
} from '../../../schema/index.js';
import { ApiError, bodyProblems, wholeBodyProblem } from '../../api-error.js';
import { assertCompanyWriter } from '../../guard.js';
import type { ApiReply, ApiRequest } from '../../types.js';
import { agentSeats, lookups, readContext, type SetupContext } from './setup.context.js';
import { checkIfMatch, writeDocument } from './setup.config-write.js';
import type { SetupRouteDeps } from './setup.deps.js';
import { specOf } from './setup.reads.js';

/** A fresh shared secret from the CSPRNG; codehost-b takes the standard-webhooks `whsec_` form. */
export function mint(spec: KindSpec, r: Requirement): string {
  const bytes = randomBytes(32);
  return spec.key === 'codehost-b' && r.field === 'signing_secret'
    ? `whsec_${bytes.toString('base64')}`
    : bytes.toString('base64url');
}

const actorOf = (req: ApiRequest): string => req.actor?.id ?? 'anonymous';

function readInputs(req: ApiRequest): SetupInputs {
  let body: unknown;
  try {
    body = JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new ApiError('invalid_body', {
      detail: 'The body is not valid JSON.',
      extra: { problems: wholeBodyProblem('expected a JSON object') },
    });
  }
  const parsed = SetupInputs.safeParse(body);
  if (!parsed.success) {
    throw new ApiError('invalid_body', {
      detail: 'The body is not {if_match, values, generate}.',
      extra: {
        problems: bodyProblems(parsed.error.issues),
      },
    });
  }
  return parsed.data;
}

function plan(spec: KindSpec, inputs: SetupInputs, ctx: SetupContext): ReturnType<typeof planInputs> {
  try {
    return planInputs(
      spec,
      inputs,
      ctx.document,
      ctx.seats.map((s) => s.handle),
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
  // 2. without a keyring nothing can be sealed
  const fields = [...Object.keys(inputs.values), ...inputs.generate];
  const sealing = spec.requirements.some((r) => r.kind === 'secret' && fields.includes(r.field));
  if (sealing && !deps.hasKeyring) {
    throw new ApiError('no_keyring', {
      detail: 'Credentials are sealed into the secret store, which needs secrets.keys.',
    });
  }
  // 3. plan against the revision read; a stale one is refused before anything is sealed
  const ctx = await readContext(deps);
  const ifMatch = checkIfMatch(inputs.if_match, ctx.record?.revision_id ?? null);
  const planned = plan(spec, inputs, ctx);
  const summary = `setup ${spec.key}: ${fields.join(', ') || 'no change'}`;
  const base = ctx.record?.revision_id;
  // 4. validate the patched document before sealing, so a refused document seals nothing
  if (planned.document !== null && base !== undefined) {
    const write = { document: planned.document, basisRevisionId: base, actor: actorOf(req), summary };
    await writeDocument(deps, { ...write, dryRun: true, ...(ifMatch ? { ifMatch } : {}) });
  }
  // 5. seal, then store the revision that references the sealed names
  for (const seal of planned.seals) await deps.seal(seal.name, seal.value, actorOf(req));
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
  req.log.info(
    {
      event: 'setup_inputs',
      kind: spec.key,
      sealed: planned.seals.map((s) => s.name),
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
      warnings: stored?.warnings ?? [],
      written: planned.written,
      sealed: planned.seals.map((s) => ({ field: s.field, secret_name: s.name, generated: s.generated })),
    },
  };
}

/** The kind's settings with every `${VAR}` resolved, for the provisioning host only. */
async function settingsOf(
  deps: SetupRouteDeps,
  spec: KindSpec,
  ctx: SetupContext,
): Promise<Record<string, unknown>> {
  if (spec.block_path === null) {
    const out: Record<string, unknown> = {};
    for (const r of spec.requirements)
      if (r.secret_name !== null) out[r.field] = (await deps.lookup(r.secret_name))?.value ?? '';
    return out;
  }
  const raw = valueAt(ctx.document, segmentsOf(spec.block_path));
  const block = raw !== null && typeof raw === 'object' ? raw : { value: raw ?? null };
  const found = await lookups(
    deps,
    listReferences(block).map((ref) => ref.name),
  );
  return substituteDeep(block, (name) => found.get(name)?.value) as Record<string, unknown>;
}

/** Where a seat's own token for `spec` sits in the document, or null when the seat or the kind has none. */
function seatTokenAt(spec: KindSpec, ctx: SetupContext, handle: string): Array<string | number> | null {
  const seat = ctx.document === null ? null : seatSegments(ctx.document, handle);
  return seat === null || !spec.seat_token ? null : [...seat, ...segmentsOf(spec.seat_token.path)];
}

async function pass(
  deps: SetupRouteDeps,
  req: ApiRequest,
  spec: KindSpec,
  ctx: SetupContext,
  mode: PassMode,
  keep?: (seat: string, value: string) => void,
) {
  const seats = agentSeats(ctx);
  return deps.passes.run({
    kind: spec.key,
    mode,
    actor: actorOf(req),
    settings: await settingsOf(deps, spec, ctx),
    publicUrl: ctx.publicBase.resolved === null ? null : `${ctx.publicBase.resolved}${spec.inbound_path}`,
    agentSeats: seats,
    seatsWithToken: seats.filter((h) => {
      const at = seatTokenAt(spec, ctx, h);
      const value = at === null ? undefined : valueAt(ctx.document, at);
      return typeof value === 'string' && value !== '';
    }),
    ...(keep ? { keep } : {}),
  });
}

export async function runPass(deps: SetupRouteDeps, req: ApiRequest, mode: PassMode): Promise<ApiReply> {
  // A provision may store a revision (seat tokens): on a managed document it is a writer's gesture.
  if (mode === 'provision') assertCompanyWriter(deps.auth, req.actor);
  const spec = specOf(req);
  const ctx = await readContext(deps);
  // 1. the pass; seat tokens it mints are handed over only when they can be sealed
  const minted: Array<{ seat: string; value: string }> = [];
  const canKeep = mode === 'provision' && deps.hasKeyring && spec.seat_token !== undefined;
  const keep = canKeep ? (seat: string, value: string) => void minted.push({ seat, value }) : undefined;
  const run = await pass(deps, req, spec, ctx, mode, keep);
  if (minted.length === 0 || !spec.seat_token || ctx.document === null || ctx.record === null) {
    return { status: 200, body: { ...run, revision_id: null } };
  }
  // 2. seal each, then reference them from their seats in one new revision
  let document = ctx.document;
  for (const { seat, value } of minted) {
    const name = seatSecretName(spec.seat_token.secret_name, seat);
    await deps.seal(name, value, actorOf(req));
    const at = seatTokenAt(spec, ctx, seat);
    if (at !== null) document = withValue(document, at, `\${${name}}`);
  }
  const stored = await writeDocument(deps, {
    document,
    basisRevisionId: ctx.record.revision_id,
    actor: actorOf(req),
    summary: `setup ${spec.key}: seat tokens for ${minted.map((m) => m.seat).join(', ')}`,
    dryRun: false,
  });
  return { status: 200, body: { ...run, revision_id: stored?.revision_id ?? null } };
}

export async function disconnect(deps: SetupRouteDeps, req: ApiRequest): Promise<ApiReply> {
  // 1. managed document: refuse before anything is read or stored
  assertCompanyWriter(deps.auth, req.actor);
  const spec = specOf(req);
  const ctx = await readContext(deps);
  const ifMatch = checkIfMatch(req.headers['if-match'], ctx.record?.revision_id ?? null);
  const at = spec.block_path === null ? null : segmentsOf(spec.block_path);
  // A kind without a block (monitor) is configured while its store-only credentials resolve.
  const configured =
    at === null
      ? Object.values(await settingsOf(deps, spec, ctx)).some((v) => v !== '')
      : ctx.document !== null && valueAt(ctx.document, at) !== undefined;
  if (!configured)
    return { status: 200, body: { kind: spec.key, removed: false, revision_id: null, remote: null } };
  // 2. remove at the third party first; a failure is recorded and reported, and the block goes anyway
  const run = await pass(deps, req, spec, ctx, 'disconnect');
  // 3. then the block, as a new revision (the monitor's token lives in the secret store only)
  let stored = null;
  if (at === null) {
    for (const r of spec.requirements)
      if (r.secret_name !== null) await deps.unseal(r.secret_name, actorOf(req));
  } else if (ctx.document !== null && ctx.record !== null) {
    stored = await writeDocument(deps, {
      document: withValue(ctx.document, at, undefined),
      basisRevisionId: ctx.record.revision_id,
      actor: actorOf(req),
      summary: `setup ${spec.key}: disconnect`,
      dryRun: false,
      ...(ifMatch ? { ifMatch } : {}),
    });
  }
  return {
    status: 200,
    body: {
      kind: spec.key,
      removed: true,
      revision_id: stored?.revision_id ?? null,
      epoch: stored?.epoch ?? null,
      remote: { run_id: run.id, status: run.status, reason: run.reason },
    },
  };
}
