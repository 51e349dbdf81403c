/**
 * The node's lifecycle (spec "Node configuration state"): booting → unconfigured → serving{posture}
 * → draining → stopped. Pure: no effects, so it is specified as given/when/then on `transition()`.
 */
import { assign, setup } from 'xstate';
import type { Posture } from '../../schema/index.js';

/** Postures an apply failure may leave the node in (which one is the host's call). */
export type DivergedPosture = Extract<Posture, 'shed' | 'isolated' | 'stuck'>;

export type NodeEvent =
  | { type: 'node.booted'; configured: boolean; appliedEpoch: number }
  | { type: 'node.apply.started'; epoch: number }
  | { type: 'node.apply.succeeded'; epoch: number }
  | { type: 'node.apply.failed'; epoch: number; posture: DivergedPosture }
  /** The node lags the fleet epoch more than 45 s while a peer has it. */
  | { type: 'node.lagged' }
  /** Termination signal; only the first counts. */
  | { type: 'node.drain' }
  | { type: 'node.stopped' };

export interface NodeContext {
  readonly configured: boolean;
  readonly appliedEpoch: number;
  /** Posture remembered while unconfigured or draining; inside `serving` the child state is the posture. */
  readonly posture: Posture;
}

export const nodeMachine = setup({
  types: { context: {} as NodeContext, events: {} as NodeEvent },
  guards: {
    bootedConfigured: ({ event }) => event.type === 'node.booted' && event.configured,
  },
  actions: {
    recordBoot: assign(({ event }) =>
      event.type === 'node.booted' ? { configured: event.configured, appliedEpoch: event.appliedEpoch } : {},
    ),
    recordApplied: assign(({ event }) =>
      event.type === 'node.apply.succeeded'
        ? { configured: true, appliedEpoch: event.epoch, posture: 'serve' as const }
        : {},
    ),
    rememberPosture: assign((_, params: { posture: Posture }) => ({ posture: params.posture })),
    rememberFailure: assign(({ event }) =>
      event.type === 'node.apply.failed' ? { posture: event.posture } : {},
    ),
  },
}).createMachine({
  id: 'node',
  initial: 'booting',
  context: { configured: false, appliedEpoch: 0, posture: 'serve' },
  on: {
    'node.drain': '.draining',
  },
  states: {
    booting: {
      on: {
        'node.booted': [
          { guard: 'bootedConfigured', target: 'serving', actions: 'recordBoot' },
          { target: 'unconfigured', actions: 'recordBoot' },
        ],
      },
    },
    unconfigured: {
      on: {
        'node.apply.started': { actions: { type: 'rememberPosture', params: { posture: 'wait' } } },
        'node.apply.succeeded': { target: 'serving', actions: 'recordApplied' },
        'node.apply.failed': { actions: { type: 'rememberPosture', params: { posture: 'serve' } } },
      },
    },
    serving: {
      initial: 'serve',
      on: {
        'node.apply.started': {
          target: '.wait',
          actions: { type: 'rememberPosture', params: { posture: 'wait' } },
        },
        'node.apply.succeeded': { target: '.serve', actions: 'recordApplied' },
        'node.apply.failed': [
          { guard: ({ event }) => event.posture === 'shed', target: '.shed', actions: 'rememberFailure' },
          {
            guard: ({ event }) => event.posture === 'isolated',
            target: '.isolated',
            actions: 'rememberFailure',
          },
          { target: '.stuck', actions: 'rememberFailure' },
        ],
      },
      states: {
        serve: {
          on: {
            'node.lagged': {
              target: 'shed',
              actions: { type: 'rememberPosture', params: { posture: 'shed' } },
            },
          },
        },
        wait: {},
        shed: {},
        isolated: {},
        stuck: {},
      },
    },
    draining: {
      // A second signal changes nothing: the drain already runs.
      on: { 'node.drain': {}, 'node.stopped': 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
