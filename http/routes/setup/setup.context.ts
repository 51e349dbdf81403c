/** What every setup route reads first: the active document (opened), the seats, the public base URL. */
import { activeRevision } from '../../../projections/index.js';
import {
  appRoster,
  integrationState,
  isSealedDocument,
  namesToLookUp,
  setupFindings,
  setupKinds,
  validateCompany,
  type IntegrationState,
  type SetupFinding,
  type KindSpec,
  type LookupAnswer,
  type RevisionRecord,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { SetupConfigDeps } from './setup.deps.js';

export interface SetupContext {
  readonly record: RevisionRecord | null;
  /** The opened document; null before the first revision. */
  readonly document: Record<string, unknown> | null;
  readonly seats: ReadonlyArray<{ handle: string; kind: 'agent' | 'human' }>;
  readonly publicBase: { present: boolean; resolved: string | null; reference: string };
}

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

export async function readContext(deps: SetupConfigDeps): Promise<SetupContext> {
  const record = activeRevision(deps.state());
  let document: Record<string, unknown> | null = null;
  if (record) {
    let opened: unknown;
    try {
      opened = deps.openPayload(record);
    } catch {
      opened = isSealedDocument(record.payload) ? null : record.payload;
    }
    if (opened === null) {
      throw new ApiError('unreadable_revision', {
        detail: `revision ${record.revision_id} is sealed under a key this node lacks`,
      });
    }
    document = opened as Record<string, unknown>;
  }
  const seats =
    document === null
      ? []
      : (validateCompany(document, { mode: 'runnable' }).derived?.seats ?? []).flatMap((s) =>
          s.handle === null ? [] : [{ handle: s.handle, kind: s.kind }],
        );
  const answer = await deps.lookup(deps.publicBaseReference);
  const raw = answer?.value.trim() ?? '';
  return {
    record,
    document,
    seats,
    publicBase: {
      present: raw !== '',
      resolved: raw !== '' && isHttpUrl(raw) ? raw.replace(/\/+$/, '') : null,
      reference: deps.publicBaseReference,
    },
  };
}

export const agentSeats = (ctx: SetupContext): string[] =>
  ctx.seats.filter((s) => s.kind === 'agent').map((s) => s.handle);

/** Looks up every name the kind's state needs (the store and environment are read once per name). */
export async function lookups(
  deps: SetupConfigDeps,
  names: readonly string[],
): Promise<Map<string, LookupAnswer | null>> {
  const out = new Map<string, LookupAnswer | null>();
  for (const name of new Set(names)) out.set(name, await deps.lookup(name));
  return out;
}

export async function stateOf(
  deps: SetupConfigDeps,
  ctx: SetupContext,
  spec: KindSpec,
  credential?: (text: string) => boolean,
): Promise<IntegrationState> {
  const seats = agentSeats(ctx);
  const names = namesToLookUp(spec, ctx.document, seats);
  // Stored under a key this node lacks: present, but it cannot resolve here (the answer says which key).
  const unreadable = new Map<string, string>();
  for (const name of names) {
    const keyId = deps.unreadableKey?.(name) ?? null;
    if (keyId !== null) unreadable.set(name, keyId);
  }
  const state = integrationState(spec, {
    document: ctx.document,
    lookups: await lookups(deps, names),
    unreadable,
    publicBase: ctx.publicBase.resolved,
    agentSeats: seats,
    ...(credential ? { credential } : {}),
  });
  // Each agent seat makes and installs its own codehost-a app: the roster says which step it is at.
  return spec.key === 'codehost-a'
    ? { ...state, roster: appRoster(ctx.document, seats, deps.codehostAWebUrl ?? null) }
    : state;
}

/**
 * Reads the reconcile findings of every integration (ops/setup.md): what each enabled block still lacks,
 * under its requirements' `blocks` names. The document and its seats are read once per active revision;
 * the `${VAR}` look-ups on every call (a secret put or removed changes them). None before the first
 * revision, or while it cannot be read here.
 */
export function findingsReader(deps: SetupConfigDeps): () => Promise<SetupFinding[]> {
  let cached: { revision: string | null; ctx: SetupContext } | null = null;
  return async () => {
    const revision = activeRevision(deps.state())?.revision_id ?? null;
    if (revision === null) return [];
    try {
      if (cached?.revision !== revision) cached = { revision, ctx: await readContext(deps) };
    } catch {
      return [];
    }
    const { ctx } = cached;
    const out: SetupFinding[] = [];
    for (const spec of setupKinds) out.push(...setupFindings(spec, await stateOf(deps, ctx, spec)));
    return out;
  };
}
