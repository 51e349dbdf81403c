/**
 * The read models as projections of the runner (`runner.ts`), one per read model, so each boots,
 * follows, checkpoints and rebuilds on its own (`svc projections rebuild readmodels.tokens`):
 *  - `readmodels.agents` folds the events stream from the history floor (30 days). It has no checkpoint:
 *    the agents' boot seed is bounded to the newest three turns per seat (spec rule 2), a bound taken
 *    over the whole replay at its end (`replayed`), not a fold, so a state saved at one point plus the
 *    tail after it would keep phase records of turns a replay from zero drops. It therefore replays from
 *    zero on every boot (a parse of each event of the window).
 *  - `readmodels.memory` and `readmodels.sandboxes` fold their events from the same floor, no checkpoint
 *    (the sandbox set is reconciled against the durable run record anyway).
 *  - `readmodels.tokens` (the token ledger) and `readmodels.spend_window` (the live window) fold the
 *    spend stream from 92 days back (the longest read: 90 company days plus zone slack): a turn's calls
 *    and auxiliary workers' alike (an `auxiliary_spend` event is the history line of its record and is not
 *    counted again). A record stamped ahead of the clock is placed at its arrival: the time the stream
 *    stored it, handed through from the message, so a replay, a restart and every fleet node place it
 *    alike. Each checkpoints the records it holds with the instant each was placed at; a load folds them
 *    again on this node's clock, so the window's ageing comes out as a replay from zero would make it.
 *  - `readmodels.seat_needs` folds every seat's log records and snapshots (`SVC_SEATS`, kept without age)
 *    into each seat's open questions, checkpointed (readmodels.seat-needs.ts): a question outlives the event
 *    history.
 * The stream-only `agent_turn_progress` is not stored, so no runner can replay it: the wiring subscribes
 * to it beside the runners and folds it into the same state.
 */
import { z } from 'zod';
import { eventTypeOf, Streams, type StoredMessage } from '../../bus/index.js';
import { EventRecordOpenPayload, SpendRecord, type EventRecord } from '../../schema/index.js';
import { seedBound } from '../agents/agents.seed.js';
import { emptyAgentsState, type AgentsState } from '../agents/agents.state.js';
import { foldedEventTypes, type ReadModels } from './readmodels.js';
import { decodeJson } from '../runner/decode-json.js';
import type { Projection } from '../runner/runner.js';
import { ledgerMaxAgeMs, loadLedger, saveLedger, type TokenLedger } from '../tokens/tokens.ledger.js';
import type { SpendWindow } from '../tokens/spend-window.js';
import { emptyMemoryState, type MemoryState } from '../memory/memory.projection.js';
import { emptySandboxesState, type SandboxesState } from '../sandboxes/sandboxes.projection.js';
import { seatNeedsProjection, type SeatNeedsState } from './readmodels.seat-needs.js';

/** The event history the read models seed from (spec: event_history_seconds, 30 days). */
export const eventSeedMs = 30 * 86_400_000;
/** The spend the ledger can ever answer about (90 company days plus a day of zone slack). */
export const spendSeedMs = ledgerMaxAgeMs;

/** Agent events whose boot replay is bounded to the newest turns per seat. */
const bounded = (type: string): boolean =>
  type.startsWith('agent_') ||
  type === 'llm_unavailable' ||
  type === 'budget_exhausted' ||
  type === 'turn.guard_breach';

interface AgentsReplay {
  readonly agents: AgentsState;
  /** Agent events held back while replaying (null once live). */
  held: EventRecord[] | null;
}

export interface ReadModelProjections {
  readonly agents: Projection<AgentsReplay>;
  readonly memory: Projection<MemoryState>;
  readonly sandboxes: Projection<SandboxesState>;
  readonly tokens: Projection<TokenLedger>;
  readonly spendWindow: Projection<SpendWindow>;
  readonly seatNeeds: Projection<SeatNeedsState>;
  /** All of them, in boot order. */
  readonly all: ReadonlyArray<Projection<unknown>>;
}

/**
 * Decodes and checks each message once for all the read models fed it: the projections of a stream are fed
 * the same message object one after another (shared-replay.ts, shared-tail.ts), so the last one decoded is
 * kept. An event read model skips a type it does not fold by its subject, undecoded.
 */
function decodedOnce<T>(check: (json: unknown) => T | null): (message: StoredMessage) => T | null {
  let last: StoredMessage | null = null;
  let record: T | null = null;
  return (message) => {
    if (message !== last) {
      record = check(decodeJson(message.data));
      last = message;
    }
    return record;
  };
}
const checked =
  <T>(schema: z.ZodType<T>) =>
  (json: unknown): T | null => {
    const parsed = schema.safeParse(json);
    return parsed.success ? parsed.data : null;
  };

/** A spend window checkpoint: its records, each with the instant it ages from (null when undated). */
const SavedWindow = z.object({
  records: z.array(z.object({ record: z.unknown(), agesFrom: z.number().int().nullable() })),
});

/**
 * The projections that fill `models` (their state is the models' own: `init` and loads install it; the seat
 * needs' is told to the models seat by seat). `onSeatLogTrouble`: a seat log record skipped as unreadable or
 * as a superseded lease holder's late write.
 */
export function readModelProjections(
  models: ReadModels,
  now: () => number = Date.now,
  onSeatLogTrouble?: (seq: number, error: unknown) => void,
): ReadModelProjections {
  const sinceEvents = () => new Date(now() - eventSeedMs);
  // Each read model checks the payload of every type it folds with that type's schema: walked once there.
  const decodeEvent = decodedOnce(checked(EventRecordOpenPayload));
  const eventRecord = (message: StoredMessage, folds: (type: string) => boolean): EventRecord | null => {
    const type = eventTypeOf(message.subject);
    return type !== null && !folds(type) ? null : decodeEvent(message);
  };
  const spendRecord = decodedOnce(checked(SpendRecord));
  const sinceSpend = () => new Date(now() - spendSeedMs);
  const agents: Projection<AgentsReplay> = {
    name: 'readmodels.agents',
    version: 1,
    stream: Streams.Events,
    since: sinceEvents,
    init: () => ({ agents: models.useAgents(emptyAgentsState()), held: [] }),
    apply: (state, message) => {
      const e = eventRecord(message, foldedEventTypes.agents);
      if (e === null) return;
      if (state.held !== null && bounded(e.type)) state.held.push(e);
      else models.foldAgentEvent(e);
    },
    replayed: (state) => {
      const held = state.held ?? [];
      state.held = null;
      // Turn completions are always folded (the activity log); phase records only of the newest turns.
      const kept = new Set(seedBound(held));
      for (const e of held) if (kept.has(e) || e.type === 'agent_turn_completed') models.foldAgentEvent(e);
    },
  };
  const memory: Projection<MemoryState> = {
    name: 'readmodels.memory',
    version: 1,
    stream: Streams.Events,
    since: sinceEvents,
    init: () => models.useMemory(emptyMemoryState()),
    apply: (_state, message) => {
      const e = eventRecord(message, foldedEventTypes.memory);
      if (e !== null) models.foldMemoryEvent(e);
    },
  };
  const sandboxes: Projection<SandboxesState> = {
    name: 'readmodels.sandboxes',
    version: 1,
    stream: Streams.Events,
    since: sinceEvents,
    init: () => models.useSandboxes(emptySandboxesState()),
    apply: (_state, message) => {
      const e = eventRecord(message, foldedEventTypes.sandboxes);
      if (e !== null) models.foldSandboxEvent(e);
    },
  };
  const tokens: Projection<TokenLedger> = {
    name: 'readmodels.tokens',
    // 2: records older than 32 days are kept as quarter-hour sums (`slots`). 3: whole records are saved with
    // the instant they were placed at (a version 2 checkpoint is discarded and the ledger rebuilt by replay).
    // 4: the sums keep their estimated tokens (a version 3 sum does not say which of its records were).
    version: 4,
    stream: Streams.Spend,
    since: sinceSpend,
    init: () => models.useLedger(models.emptyLedger()),
    apply: (_state, message) => {
      const record = spendRecord(message);
      if (record !== null) models.foldLedger(record, message.time.getTime());
    },
    replayed: () => models.markSpendSeeded(),
    checkpoint: {
      save: (state) => saveLedger(state),
      load: (saved) => {
        const state = models.emptyLedger();
        return loadLedger(state, saved) ? models.useLedger(state) : null;
      },
    },
  };
  const spendWindow: Projection<SpendWindow> = {
    name: 'readmodels.spend_window',
    // 2: records are saved with the instant they age from (a version 1 checkpoint is rebuilt by replay).
    version: 2,
    stream: Streams.Spend,
    since: sinceSpend,
    init: () => models.useWindow(models.emptyWindow()),
    apply: (_state, message) => {
      const record = spendRecord(message);
      if (record !== null) models.foldWindow(record, message.time.getTime());
    },
    checkpoint: {
      save: (state) => ({ records: state.saved() }),
      load: (saved) => {
        const parsed = SavedWindow.safeParse(saved);
        if (!parsed.success) return null;
        const state = models.emptyWindow();
        for (const { record, agesFrom } of parsed.data.records) {
          // A record this build no longer reads is skipped, not the whole checkpoint.
          const one = SpendRecord.safeParse(record);
          if (one.success) state.add(one.data, agesFrom ?? undefined);
        }
        return models.useWindow(state);
      },
    },
  };
  const seatNeeds = seatNeedsProjection({
    onNeeds: (handle, open) => models.needsRecord(handle, open),
    ...(onSeatLogTrouble ? { onTrouble: onSeatLogTrouble } : {}),
  });
  return {
    agents,
    memory,
    sandboxes,
    tokens,
    spendWindow,
    seatNeeds,
    all: [agents, memory, sandboxes, tokens, spendWindow, seatNeeds] as ReadonlyArray<Projection<unknown>>,
  };
}
