/**
 * One configuration write (DESIGN.md "config writer"): checking → validating → storing → activating
 * → activated | stored_inactive, or refused. Effects (storing the record, the compare-and-set on the
 * active pointer) are named actors the host provides, so the decisions are testable without a bus.
 */
import { assign, fromPromise, not, setup } from 'xstate';
import {
  findEntity,
  type ActivePointer,
  type ConfigWrite,
  type ConfigWriteReply,
  type RevisionRecord,
} from '../../schema/index.js';

/** The active pointer as read from the coordination store, with the store's revision for the CAS. */
export interface ActiveRead {
  readonly pointer: ActivePointer;
  readonly storeRevision: number;
}

export interface WriteInput {
  readonly command: ConfigWrite;
  readonly active: ActiveRead | null;
  /** Fresh identity and clock for the record, chosen by the host (keeps the machine deterministic). */
  readonly revisionId: string;
  readonly now: string;
}

/** What validation answers; problems and warnings are the company validator's findings. */
export interface Validation {
  readonly valid: boolean;
  readonly problems: ReadonlyArray<Record<string, unknown>>;
  readonly warnings: ReadonlyArray<Record<string, unknown>>;
  readonly derived: unknown;
  /** The normalised document to store when valid. */
  readonly document: unknown;
}

export interface ActivateInput {
  readonly pointer: ActivePointer;
  /** Store revision the new pointer must replace; 0 = create (nothing active). */
  readonly expectedStoreRevision: number;
}

/** Outcome of the compare-and-set: won, or the revision that is active instead. */
export type ActivateOutput = { won: true } | { won: false; activeRevisionId: string | null };

interface WriteContext {
  readonly input: WriteInput;
  readonly validation: Validation | null;
  readonly reply: ConfigWriteReply | null;
  /** The revision a create-only entity write lost to, whose document decides `entity_exists`. */
  readonly lostTo: string | null;
}

const refuse = (error: string, status: number, detail: string, extra: Partial<ConfigWriteReply> = {}) =>
  ({ outcome: 'refused', error, status, detail, ...extra }) as ConfigWriteReply;

/** Preconditions that refuse a write before it is read (write rule 5); null when the write may proceed. */
export function checkPreconditions(input: WriteInput): ConfigWriteReply | null {
  const { precondition } = input.command;
  const active = input.active?.pointer ?? null;
  if (precondition.if_match !== undefined && precondition.if_none_match_any) {
    return refuse('conflicting_preconditions', 400, 'If-None-Match: * and If-Match exclude each other');
  }
  if (precondition.if_none_match_any && active) {
    return refuse('already_configured', 412, `revision ${active.revision_id} is already active`);
  }
  if (active && noneMatchNames(input.command, active.revision_id)) {
    return refuse('already_configured', 412, `If-None-Match names the active revision ${active.revision_id}`);
  }
  if (precondition.if_match !== undefined && !active) {
    return refuse('no_active_revision', 412, 'If-Match names a revision but none is active');
  }
  // A dry run stores nothing, so a stale If-Match has no revision to name: it is refused here.
  const stale = staleBasis(input);
  if (stale !== null && input.command.dry_run && precondition.if_match !== undefined) {
    return refuse('revision_advanced', 409, stale);
  }
  return null;
}

/** Whether the write's `If-None-Match` lists `revisionId` (ids compare ignoring case, as the gateway's). */
function noneMatchNames(command: ConfigWrite, revisionId: string): boolean {
  const id = revisionId.toLowerCase();
  return command.precondition.if_none_match?.some((tag) => tag.toLowerCase() === id) ?? false;
}

/**
 * A lost compare-and-set: another write activated `winner` first. A create-only write (`If-None-Match: *`)
 * or one whose `If-None-Match` names the winner failed its precondition, decided on the pointer the
 * compare-and-set read: 412 `already_configured`; any other is 409. Either way the revision stays stored
 * inactive and is named.
 */
function lostRace(input: WriteInput, winner: string | null): ConfigWriteReply {
  const extra = { stored_revision_id: input.revisionId };
  if (
    winner !== null &&
    (input.command.precondition.if_none_match_any || noneMatchNames(input.command, winner))
  )
    return refuse(
      'already_configured',
      412,
      `revision ${winner} was activated first, which this write's If-None-Match refuses; it is stored inactive`,
      extra,
    );
  return refuse(
    'revision_advanced',
    409,
    'another write activated a revision first; this one is stored inactive',
    extra,
  );
}

/**
 * The revision a create-only entity write (`if_entity_absent`) lost to, when its document is to be read
 * to judge the precondition again; null for any other write (its 409 stands).
 */
function entityJudgedOn(input: WriteInput, winner: string | null): string | null {
  return input.command.precondition.if_entity_absent && winner !== null ? winner : null;
}

/** 412 `entity_exists` when `document` (the revision the write lost to) holds the entry; else null. */
function entityExists(input: WriteInput, lostTo: string, document: unknown): ConfigWriteReply | null {
  const entity = input.command.precondition.if_entity_absent;
  if (!entity || !findEntity(document, entity.kind, entity.id)) return null;
  return refuse(
    'entity_exists',
    412,
    `${entity.kind} ${entity.id} is in revision ${lostTo}, activated before this create-only write; it is stored inactive`,
    { stored_revision_id: input.revisionId },
  );
}

/**
 * Why the write no longer builds on the active revision (a stale If-Match, or a read overtaken by another
 * write); null when it does. A valid stale write is stored inactive and named, like a lost race (spec
 * errors: `revision_advanced` carries `stored_revision_id`).
 */
export function staleBasis(input: WriteInput): string | null {
  const { precondition, basis_revision_id: basis } = input.command;
  const active = input.active?.pointer ?? null;
  if (
    precondition.if_match !== undefined &&
    precondition.if_match !== '*' &&
    precondition.if_match !== active?.revision_id
  ) {
    const outcome = input.command.dry_run
      ? 'a write with it would be refused'
      : 'this write is stored inactive';
    return `If-Match ${precondition.if_match} is not the active revision ${active?.revision_id}; ${outcome}`;
  }
  if (!input.command.dry_run && basis !== (active?.revision_id ?? null)) {
    return `the document was read from ${basis ?? 'nothing'}; ${active?.revision_id ?? 'nothing'} is active now, so this write is stored inactive`;
  }
  return null;
}

export const configWriteMachine = setup({
  types: {
    context: {} as WriteContext,
    input: {} as WriteInput,
    output: {} as ConfigWriteReply,
  },
  actors: {
    validate: fromPromise<Validation, ConfigWrite>(() => Promise.reject(new Error('validate not provided'))),
    storeRevision: fromPromise<void, RevisionRecord>(() =>
      Promise.reject(new Error('storeRevision not provided')),
    ),
    activate: fromPromise<ActivateOutput, ActivateInput>(() =>
      Promise.reject(new Error('activate not provided')),
    ),
    /** A stored revision's document; without one, a create-only entity write that lost stays 409. */
    openRevision: fromPromise<unknown, string>(() => Promise.reject(new Error('openRevision not provided'))),
  },
  guards: {
    preconditionsFail: ({ context }) => checkPreconditions(context.input) !== null,
    invalid: ({ event }) => 'output' in event && !(event.output as Validation).valid,
    dryRun: ({ context }) => context.input.command.dry_run,
    stale: ({ context }) => staleBasis(context.input) !== null,
    won: ({ event }) => 'output' in event && (event.output as ActivateOutput).won,
    judgeEntity: ({ context }) => context.lostTo !== null,
  },
}).createMachine({
  id: 'configWrite',
  context: ({ input }) => ({ input, validation: null, reply: null, lostTo: null }),
  initial: 'checking',
  states: {
    checking: {
      always: [
        {
          guard: 'preconditionsFail',
          target: 'refused',
          actions: assign({ reply: ({ context }) => checkPreconditions(context.input) }),
        },
        { target: 'validating' },
      ],
    },
    validating: {
      invoke: {
        src: 'validate',
        input: ({ context }) => context.input.command,
        onDone: [
          {
            guard: 'invalid',
            target: 'refused',
            actions: assign({
              reply: ({ event }) =>
                refuse(
                  'validation_error',
                  400,
                  `the document has ${event.output.problems.length} problem(s)`,
                  {
                    problems: [...event.output.problems],
                    derived: event.output.derived,
                  },
                ),
            }),
          },
          {
            guard: 'dryRun',
            target: 'valid',
            actions: assign({
              reply: ({ context, event }) => ({
                outcome: 'valid' as const,
                base_revision_id: context.input.active?.pointer.revision_id ?? '',
                warnings: [...event.output.warnings],
                derived: event.output.derived,
              }),
            }),
          },
          { target: 'storing', actions: assign({ validation: ({ event }) => event.output }) },
        ],
        onError: 'failed',
      },
    },
    storing: {
      invoke: {
        src: 'storeRevision',
        input: ({ context }) => recordOf(context),
        onDone: [
          {
            guard: 'stale',
            target: 'judgingLoss',
            actions: assign({
              reply: ({ context }) =>
                refuse('revision_advanced', 409, staleBasis(context.input) ?? '', {
                  stored_revision_id: context.input.revisionId,
                }),
              lostTo: ({ context }) =>
                entityJudgedOn(context.input, context.input.active?.pointer.revision_id ?? null),
            }),
          },
          { target: 'activating' },
        ],
        onError: 'failed',
      },
    },
    activating: {
      invoke: {
        src: 'activate',
        input: ({ context }) => ({
          pointer: {
            revision_id: context.input.revisionId,
            parent_revision_id: context.input.active?.pointer.revision_id ?? null,
            epoch: (context.input.active?.pointer.epoch ?? 0) + 1,
            activated_at: context.input.now,
          },
          expectedStoreRevision: context.input.active?.storeRevision ?? 0,
        }),
        onDone: [
          {
            guard: 'won',
            target: 'activated',
            actions: assign({
              reply: ({ context }) => ({
                outcome: 'stored' as const,
                revision_id: context.input.revisionId,
                epoch: (context.input.active?.pointer.epoch ?? 0) + 1,
                warnings: [...(context.validation?.warnings ?? [])],
                derived: context.validation?.derived,
              }),
            }),
          },
          {
            target: 'judgingLoss',
            actions: assign({
              reply: ({ context, event }) =>
                lostRace(
                  context.input,
                  'output' in event && !event.output.won ? event.output.activeRevisionId : null,
                ),
              lostTo: ({ context, event }) =>
                entityJudgedOn(
                  context.input,
                  'output' in event && !event.output.won ? event.output.activeRevisionId : null,
                ),
            }),
          },
        ],
        onError: 'failed',
      },
    },
    // A create-only entity write that lost: its If-None-Match is judged again on the revision it lost to.
    judgingLoss: {
      always: [{ guard: not('judgeEntity'), target: 'storedInactive' }, { target: 'readingLoss' }],
    },
    readingLoss: {
      invoke: {
        src: 'openRevision',
        input: ({ context }) => context.lostTo ?? '',
        onDone: {
          target: 'storedInactive',
          actions: assign({
            reply: ({ context, event }) =>
              entityExists(context.input, context.lostTo ?? '', event.output) ?? context.reply,
          }),
        },
        // The revision it lost to cannot be read: the lost race (409) is still true, so it is answered.
        onError: 'storedInactive',
      },
    },
    valid: { type: 'final' },
    activated: { type: 'final' },
    storedInactive: { type: 'final' },
    refused: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) =>
    context.reply ??
    refuse('unavailable', 503, 'the configuration store did not answer; nothing is known to be active'),
});

function recordOf(context: WriteContext): RevisionRecord {
  const { input } = context;
  return {
    revision_id: input.revisionId,
    // A stale write derived from the revision it read, not from the one that overtook it.
    parent_revision_id:
      staleBasis(input) === null
        ? (input.active?.pointer.revision_id ?? null)
        : input.command.basis_revision_id,
    created_at: input.now,
    created_by: input.command.actor.id,
    created_by_kind: input.command.actor.kind,
    source: input.command.source,
    summary: input.command.summary,
    payload: context.validation?.document ?? input.command.document,
  };
}
