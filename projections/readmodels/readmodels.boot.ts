/**
 * The read models as projections of the runner (`runner.ts`), so every one boots, follows and rebuilds
 * through the same code path as the events projection:
 *  - `readmodels.events` (agents, memory, sandboxes) folds the events stream from the history floor (30
 *    days). It has no checkpoint: the agents' boot seed is bounded to the newest three turns per seat
 *    (spec rule 2), a bound taken over the whole replay at its end (`replayed`), not a fold, so a state
 *    saved at one point plus the tail after it would keep phase records of turns a replay from zero
 *    drops. It therefore replays from zero on every boot (a parse of each event of the window).
 *  - `readmodels.spend` (token ledger and live spend window) folds the spend stream from 92 days back
 *    (the longest read: 90 company days plus zone slack): a turn's calls and auxiliary workers' alike (an
 *    `auxiliary_spend` event is the history line of its record and is not counted again). Its checkpoint is the records both hold; a load
 *    folds them again on this node's clock, so the ledger's placing of a record stamped ahead of the clock
 *    and the window's ageing come out as a replay from zero would make them.
 * The stream-only `agent_turn_progress` is not stored, so no runner can replay it: the wiring subscribes
 * to it beside the runners and folds it into the same state.
 */
import { Streams, type StoredMessage } from '../../bus/index.js';
import { EventRecord, SpendRecord } from '../../schema/index.js';
import { seedBound } from '../agents/agents.seed.js';
import type { EventModels, ReadModels, SpendModels } from './readmodels.js';
import type { Projection } from '../runner/runner.js';
import { applySpend, ledgerMaxAgeMs } from '../tokens/tokens.ledger.js';

/** The event history the read models seed from (spec: event_history_seconds, 30 days). */
export const eventSeedMs = 30 * 86_400_000;
/** The spend the ledger can ever answer about (90 company days plus a day of zone slack). */
export const spendSeedMs = ledgerMaxAgeMs;

const decoder = new TextDecoder();

/** The message's JSON, or null. */
export function decodeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data)) as unknown;
  } catch {
    return null;
  }
}

/** Agent events whose boot replay is bounded to the newest turns per seat. */
const bounded = (type: string): boolean =>
  type.startsWith('agent_') ||
  type === 'llm_unavailable' ||
  type === 'budget_exhausted' ||
  type === 'turn.guard_breach';

interface EventsReplay extends EventModels {
  /** Agent events held back while replaying (null once live). */
  held: EventRecord[] | null;
}

interface SavedSpend {
  readonly ledger: unknown[];
  readonly window: unknown[];
}

export interface ReadModelProjections {
  readonly events: Projection<EventsReplay>;
  readonly spend: Projection<SpendModels>;
}

/** The two projections that fill `models` (their state is the models' own: `init` and loads install it). */
export function readModelProjections(models: ReadModels, now: () => number = Date.now): ReadModelProjections {
  const events: Projection<EventsReplay> = {
    name: 'readmodels.events',
    version: 1,
    stream: Streams.Events,
    since: () => new Date(now() - eventSeedMs),
    init: () => {
      const state: EventsReplay = { ...models.emptyEvents(), held: [] };
      models.useEvents(state);
      return state;
    },
    apply: (state, message: StoredMessage) => {
      const parsed = EventRecord.safeParse(decodeJson(message.data));
      if (!parsed.success) return;
      if (state.held !== null && bounded(parsed.data.type)) state.held.push(parsed.data);
      else models.foldEvent(parsed.data);
    },
    replayed: (state) => {
      const held = state.held ?? [];
      state.held = null;
      // Turn completions are always folded (the activity log); phase records only of the newest turns.
      const kept = new Set(seedBound(held));
      for (const e of held) if (kept.has(e) || e.type === 'agent_turn_completed') models.foldEvent(e);
    },
  };
  const spend: Projection<SpendModels> = {
    name: 'readmodels.spend',
    version: 1,
    stream: Streams.Spend,
    since: () => new Date(now() - spendSeedMs),
    init: () => models.useSpend(models.emptySpend()),
    apply: (_state, message) => models.applySpend(decodeJson(message.data)),
    replayed: () => models.markSpendSeeded(),
    checkpoint: {
      save: (state): SavedSpend => ({
        ledger: state.ledger.entries.map((e) => e.record),
        window: state.window.records(),
      }),
      load: (saved) => {
        const s = saved as Partial<SavedSpend> | null;
        if (!s || typeof s !== 'object' || !Array.isArray(s.ledger) || !Array.isArray(s.window)) return null;
        const state = models.emptySpend();
        for (const record of s.ledger) applySpend(state.ledger, record);
        for (const record of s.window) {
          const parsed = SpendRecord.safeParse(record);
          if (parsed.success) state.window.add(parsed.data);
        }
        return models.useSpend(state);
      },
    },
  };
  return { events, spend };
}
