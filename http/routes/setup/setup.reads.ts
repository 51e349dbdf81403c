/**
 * Setup reads (spec "Secrets and setup routes"): every integration's requirements and state, one
 * integration, and the provisioning passes recorded (by any node). No answer carries a credential.
 */
import { kindSpec, setupKinds, type KindSpec } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest, RequestHead } from '../../types.js';
import { singleParam } from '../single.param.js';
import { readContext, stateOf } from './setup.context.js';
import type { SetupRouteDeps } from './setup.deps.js';

/** Whether a text holds the value of one of the node's API tokens (never shown in a setup read). */
const holdsToken =
  (deps: SetupRouteDeps) =>
  (text: string): boolean =>
    deps.auth.tokens.some((t) => t.token !== '' && text.includes(t.token));

export const RUNS_PAGE = 10;

export function specOf(req: RequestHead): KindSpec {
  const key = req.params['kind'] ?? '';
  const spec = kindSpec(key);
  if (!spec) {
    throw new ApiError('not_found', {
      detail: `no integration kind ${JSON.stringify(key)}`,
      hint: `Kinds are ${setupKinds.map((k) => k.key).join(', ')}.`,
    });
  }
  return spec;
}

export async function listIntegrations(deps: SetupRouteDeps): Promise<ApiReply> {
  const ctx = await readContext(deps);
  const integrations = [];
  for (const spec of setupKinds) integrations.push(await stateOf(deps, ctx, spec, holdsToken(deps)));
  return {
    status: 200,
    body: {
      revision_id: ctx.record?.revision_id ?? null,
      public_base_url: ctx.publicBase,
      integrations,
    },
  };
}

export async function oneIntegration(deps: SetupRouteDeps, req: ApiRequest): Promise<ApiReply> {
  const spec = specOf(req);
  const ctx = await readContext(deps);
  return {
    status: 200,
    body: {
      revision_id: ctx.record?.revision_id ?? null,
      public_base_url: ctx.publicBase,
      ...(await stateOf(deps, ctx, spec, holdsToken(deps))),
    },
  };
}

export async function listRuns(deps: SetupRouteDeps, req: ApiRequest): Promise<ApiReply> {
  const spec = specOf(req);
  await deps.runs.sync();
  const before = singleParam(req, 'before') ?? undefined;
  // A cursor that names no remembered pass would read as the end of history: say so instead.
  if (before && deps.runs.get(spec.key, before) === null) {
    throw new ApiError('bad_params', {
      detail: `before ${JSON.stringify(before)} names no remembered ${spec.key} pass`,
      hint: 'Send the `next` of the previous page; only the newest passes of each kind are remembered.',
    });
  }
  const { runs, more } = deps.runs.list(spec.key, {
    ...(before ? { before } : {}),
    limit: RUNS_PAGE,
  });
  return {
    status: 200,
    body: {
      kind: spec.key,
      // Passes are records on the bus: every node remembers every node's (`node` is who answered).
      scope: 'fleet',
      node: deps.nodeId,
      runs,
      next: more && runs.length > 0 ? runs[runs.length - 1]!.id : null,
    },
  };
}

export async function oneRun(deps: SetupRouteDeps, req: ApiRequest): Promise<ApiReply> {
  const spec = specOf(req);
  await deps.runs.sync();
  const run = deps.runs.get(spec.key, req.params['id'] ?? '');
  if (!run) {
    throw new ApiError('not_found', {
      detail: `no ${spec.key} pass ${req.params['id'] ?? ''} is remembered`,
      hint: 'Only the newest passes of each kind are remembered.',
    });
  }
  return { status: 200, body: { ...run, scope: 'fleet' } };
}
