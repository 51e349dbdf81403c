/**
 * One integration (a setup kind: `tracker-b`, `codehost-b`, `monitor`, ...) as an actor (DESIGN.md
 * "Actors": unconfigured → configured{satisfied, unsatisfied}). Its state is the fold of two inputs:
 * what the active configuration says of it (`integration.observed`: configured, enabled, satisfied) and
 * its own recorded passes (`integration.recorded.*`, replayed from SVC_INTEGRATIONS at start). Commands
 * (`integration.command`) and a finished pass (`integration.pass.done`) are where it decides; the host
 * runs the effects it names and never decides itself:
 *   - `run_pass`: run the pass (vendor calls), recording its start and finish;
 *   - `reply_not_configured`: a disconnect with nothing to remove runs no pass, nor does a provision or
 *     check of a kind whose block the document does not carry (nothing to provision or check);
 *   - `abandon_passes`: record as failed the passes this node was cut in the middle of (at its start);
 *   - `store_seat_tokens`: seal the seat tokens a provision minted and reference them in a new revision.
 * Recorded events only move state, so a replay never re-runs an effect.
 */
import { assign, setup } from 'xstate';
import type { IntegrationFacts, PassMode } from '../../schema/index.js';

export type { IntegrationFacts };

export interface LastPass {
  readonly run_id: string;
  readonly mode: PassMode;
  readonly status: 'succeeded' | 'failed';
}

export interface IntegrationContext {
  readonly kind: string;
  /** True when the kind mints per-seat tokens on provision (`seat_token` in its requirement list). */
  readonly seatTokens: boolean;
  /** True when the kind lives in a block of the document (every kind but the monitor). */
  readonly block: boolean;
  readonly facts: IntegrationFacts;
  /** Passes started and not yet finished, by run id (any node's), with the node running each. */
  readonly running: Readonly<Record<string, { readonly mode: PassMode; readonly node: string }>>;
  /** The newest finished provision or check; a disconnect says nothing of the connection's health. */
  readonly last: LastPass | null;
}

export interface IntegrationInput {
  readonly kind: string;
  readonly seatTokens: boolean;
  /** Default true: the kind has a block in the document. */
  readonly block?: boolean;
}

export type IntegrationEvent =
  | { type: 'integration.observed'; facts: IntegrationFacts }
  /** An operator asked for a pass; `keyring` says whether minted credentials can be sealed on this node. */
  | { type: 'integration.command'; mode: PassMode; run_id: string; node: string; keyring: boolean }
  /** This node (re)started: a pass it had started and not finished was cut and never will. */
  | { type: 'integration.node.started'; node: string }
  /** This node's pass ended (not replayed): `minted` seat tokens await sealing. */
  | { type: 'integration.pass.done'; run_id: string; mode: PassMode; minted: number }
  | { type: 'integration.recorded.started'; run_id: string; mode: PassMode; node: string }
  | { type: 'integration.recorded.finished'; run_id: string; mode: PassMode; status: 'succeeded' | 'failed' };

export const noFacts: IntegrationFacts = {
  configured: false,
  enabled: false,
  satisfied: false,
  document: false,
};

const runningMode = (context: IntegrationContext, mode: PassMode): boolean =>
  Object.values(context.running).some((run) => run.mode === mode);

/** The decisions, pure: each reads the context (and the event) only. */
export const integrationGuards = {
  /** A disconnect removes something only when there is something configured. */
  mayDisconnect: (context: IntegrationContext): boolean => context.facts.configured,
  /**
   * A provision or check of a kind with no block in the document would only fail on its first missing
   * setting: it is for a connected kind. A kind without a block (the monitor) is always checked, its pass
   * saying what is missing.
   */
  mayPass: (context: IntegrationContext): boolean => context.facts.configured || !context.block,
  /** Minted seat tokens are handed over only by a provision of a kind that has them, where they can be sealed. */
  keepsSeatTokens: (context: IntegrationContext, mode: PassMode, keyring: boolean): boolean =>
    mode === 'provision' && keyring && context.seatTokens,
  /** Passes `node` started and never finished: after its restart nothing will finish them. */
  cutPasses: (context: IntegrationContext, node: string): string[] =>
    Object.entries(context.running).flatMap(([id, run]) => (run.node === node ? [id] : [])),
  /** Tokens a provision minted are stored when there are some and a revision to build on. */
  storesSeatTokens: (context: IntegrationContext, mode: PassMode, minted: number): boolean =>
    mode === 'provision' && minted > 0 && context.seatTokens && context.facts.document,
};

export const integrationMachine = setup({
  types: {
    context: {} as IntegrationContext,
    events: {} as IntegrationEvent,
    input: {} as IntegrationInput,
  },
  actions: {
    // Effects: implemented by the host (integration.actors.ts) through `provide`.
    run_pass: (_, _params: { run_id: string; mode: PassMode; keep_seat_tokens: boolean }) => undefined,
    reply_not_configured: (_, _params: { run_id: string }) => undefined,
    abandon_passes: (_, _params: { run_ids: string[] }) => undefined,
    store_seat_tokens: (_, _params: { run_id: string }) => undefined,
    observe: assign(({ event }) => (event.type === 'integration.observed' ? { facts: event.facts } : {})),
    start: assign(({ context, event }) =>
      event.type === 'integration.command' || event.type === 'integration.recorded.started'
        ? { running: { ...context.running, [event.run_id]: { mode: event.mode, node: event.node } } }
        : {},
    ),
    finish: assign(({ context, event }) => {
      if (event.type !== 'integration.recorded.finished') return {};
      const { [event.run_id]: _finished, ...running } = context.running;
      const last =
        event.mode === 'disconnect'
          ? context.last
          : { run_id: event.run_id, mode: event.mode, status: event.status };
      return { running, last };
    }),
  },
  guards: {
    disconnecting: ({ context }) => runningMode(context, 'disconnect'),
    provisioning: ({ context }) => runningMode(context, 'provision'),
    checking: ({ context }) => runningMode(context, 'check'),
    unconfigured: ({ context }) => !context.facts.configured,
    disabled: ({ context }) => !context.facts.enabled,
    unsatisfied: ({ context }) => !context.facts.satisfied,
    degraded: ({ context }) => context.last?.status === 'failed',
    mayRun: ({ context, event }) =>
      event.type === 'integration.command' &&
      (event.mode === 'disconnect'
        ? integrationGuards.mayDisconnect(context)
        : integrationGuards.mayPass(context)),
    storesSeatTokens: ({ context, event }) =>
      event.type === 'integration.pass.done' &&
      integrationGuards.storesSeatTokens(context, event.mode, event.minted),
  },
}).createMachine({
  id: 'integration',
  context: ({ input }) => ({
    kind: input.kind,
    seatTokens: input.seatTokens,
    block: input.block ?? true,
    facts: noFacts,
    running: {},
    last: null,
  }),
  initial: 'settling',
  on: {
    'integration.observed': { target: '.settling', actions: 'observe' },
    'integration.command': [
      {
        guard: 'mayRun',
        target: '.settling',
        actions: [
          'start',
          {
            type: 'run_pass',
            params: ({ context, event }) => ({
              run_id: event.run_id,
              mode: event.mode,
              keep_seat_tokens: integrationGuards.keepsSeatTokens(context, event.mode, event.keyring),
            }),
          },
        ],
      },
      { actions: { type: 'reply_not_configured', params: ({ event }) => ({ run_id: event.run_id }) } },
    ],
    'integration.node.started': {
      actions: {
        type: 'abandon_passes',
        params: ({ context, event }) => ({ run_ids: integrationGuards.cutPasses(context, event.node) }),
      },
    },
    'integration.pass.done': {
      guard: 'storesSeatTokens',
      actions: { type: 'store_seat_tokens', params: ({ event }) => ({ run_id: event.run_id }) },
    },
    'integration.recorded.started': { target: '.settling', actions: 'start' },
    'integration.recorded.finished': { target: '.settling', actions: 'finish' },
  },
  states: {
    /** Transient: picks the state the context says, most pressing first. */
    settling: {
      always: [
        { guard: 'disconnecting', target: 'disconnecting' },
        { guard: 'provisioning', target: 'provisioning' },
        { guard: 'checking', target: 'checking' },
        { guard: 'unconfigured', target: 'unconfigured' },
        { guard: 'disabled', target: 'disabled' },
        { guard: 'unsatisfied', target: 'credentials_missing' },
        { guard: 'degraded', target: 'degraded' },
        { target: 'ready' },
      ],
    },
    /** No block in the document (or, for a kind without one, no credential resolves). */
    unconfigured: {},
    /** Configured with `enabled: false`. */
    disabled: {},
    /** Enabled, but a required input is missing or does not resolve. */
    credentials_missing: {},
    /** Satisfied, and the newest provision or check (if any) succeeded. */
    ready: {},
    /** Satisfied, but the newest provision or check failed. */
    degraded: {},
    provisioning: {},
    checking: {},
    /** Removing at the third party; the block goes next, and `unconfigured` follows from the config. */
    disconnecting: {},
  },
});
