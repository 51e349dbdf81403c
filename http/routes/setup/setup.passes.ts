/**
 * The setup side of a provisioning pass, given to the integration actors (scripts/setup-wiring.ts):
 * what the active document says of a kind (its facts, and its settings with every `${VAR}` resolved,
 * for the pass only), and storing the seat tokens a provision minted (setup.seat-tokens.ts). A refusal travels back as the answer the gateway would render.
 */
import type { Logger } from 'pino';
import {
  listReferences,
  PassRefused,
  seatSegments,
  segmentsOf,
  substituteDeep,
  valueAt,
  withheldReference,
  kindSpec,
  type KindSpec,
  type PassInput,
  type PassSource,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { agentSeats, lookups, readContext, stateOf, type SetupContext } from './setup.context.js';
import type { SetupConfigDeps } from './setup.deps.js';
import { storeMinted } from './setup.seat-tokens.js';

type Withheld = NonNullable<PassInput['withheld']>;

/**
 * The kind's settings with every `${VAR}` resolved, for the pass only, and the resolved values a setup
 * answer withholds (the run names their references instead).
 */
async function settingsOf(
  deps: SetupConfigDeps,
  spec: KindSpec,
  ctx: SetupContext,
): Promise<{ settings: Record<string, unknown>; withheld: Withheld }> {
  if (spec.block_path === null) {
    const settings: Record<string, unknown> = {};
    const withheld: Array<Withheld[number]> = [];
    for (const r of spec.requirements) {
      if (r.secret_name === null) continue;
      const value = (await deps.lookup(r.secret_name))?.value ?? '';
      settings[r.field] = value;
      if (value !== '') withheld.push({ name: r.secret_name, value });
    }
    return { settings, withheld };
  }
  const raw = valueAt(ctx.document, segmentsOf(spec.block_path));
  const block = raw !== null && typeof raw === 'object' ? raw : { value: raw ?? null };
  const found = await lookups(
    deps,
    listReferences(block).map((ref) => ref.name),
  );
  const withheld = [...found]
    .filter(
      ([name, answer]) =>
        answer?.value && withheldReference(name, { document: ctx.document, lookups: found }),
    )
    .map(([name, answer]) => ({ name, value: answer?.value ?? '' }));
  return {
    settings: substituteDeep(block, (name) => found.get(name)?.value) as Record<string, unknown>,
    withheld,
  };
}

/** Where a seat's own token for `spec` sits in the document, or null when the seat or the kind has none. */
function seatTokenAt(spec: KindSpec, ctx: SetupContext, handle: string): Array<string | number> | null {
  const seat = ctx.document === null ? null : seatSegments(ctx.document, handle);
  return seat === null || !spec.seat_token ? null : [...seat, ...segmentsOf(spec.seat_token.path)];
}

/** Configured as a disconnect reads it: the block is there (a kind without one: a credential resolves). */
export function isConfigured(spec: KindSpec, ctx: SetupContext, settings: Record<string, unknown>): boolean {
  return spec.block_path === null
    ? Object.values(settings).some((v) => v !== '')
    : ctx.document !== null && valueAt(ctx.document, segmentsOf(spec.block_path)) !== undefined;
}

async function passInput(deps: SetupConfigDeps, spec: KindSpec, ctx: SetupContext): Promise<PassInput> {
  const seats = agentSeats(ctx);
  const { settings, withheld } = await settingsOf(deps, spec, ctx);
  return {
    settings,
    withheld,
    publicUrl: ctx.publicBase.resolved === null ? null : `${ctx.publicBase.resolved}${spec.inbound_path}`,
    agentSeats: seats,
    seatsWithToken: seats.filter((h) => {
      const at = seatTokenAt(spec, ctx, h);
      const value = at === null ? undefined : valueAt(ctx.document, at);
      return typeof value === 'string' && value !== '';
    }),
  };
}

const refused = (error: unknown): never => {
  if (error instanceof ApiError) {
    const code = (error as ApiError).code as string;
    throw new PassRefused({
      status: error.status,
      error: code,
      detail: error.detail,
      hint: error.hint,
      extra: { ...error.extra },
    });
  }
  throw error;
};

function specOrThrow(kind: string): KindSpec {
  const spec = kindSpec(kind);
  if (!spec) throw new ApiError('not_found', { detail: `no integration kind ${JSON.stringify(kind)}` });
  return spec;
}

export function setupPassSource(deps: SetupConfigDeps, log: Logger): PassSource {
  return {
    async prepare(kind) {
      try {
        const spec = specOrThrow(kind);
        const ctx = await readContext(deps);
        const input = await passInput(deps, spec, ctx);
        const state = await stateOf(deps, ctx, spec);
        return {
          facts: {
            configured: isConfigured(spec, ctx, input.settings),
            enabled: state.enabled,
            satisfied: state.satisfied,
            document: ctx.document !== null && ctx.record !== null,
          },
          input,
          revisionId: ctx.record?.revision_id ?? null,
        };
      } catch (error) {
        return refused(error);
      }
    },
    async storeSeatTokens(kind, minted, actor, basisRevisionId) {
      try {
        const spec = specOrThrow(kind);
        const ctx = await readContext(deps);
        if (!spec.seat_token || ctx.document === null || ctx.record === null) return null;
        return await storeMinted(deps, log, {
          spec,
          secretName: spec.seat_token.secret_name,
          document: ctx.document,
          minted,
          actor,
          // The pass decided which seats get a token on the revision it read: the write builds on that one.
          basisRevisionId: basisRevisionId ?? ctx.record.revision_id,
          at: (seat) => seatTokenAt(spec, ctx, seat),
        });
      } catch (error) {
        return refused(error);
      }
    },
  };
}
