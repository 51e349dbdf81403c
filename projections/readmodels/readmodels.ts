/**
 * The read models of one node other than the event feed: agents, memory, tokens (ledger and live
 * window), budgets, sandboxes, org, seats and tools. `ReadModels` folds decoded bus messages into their
 * state and pushes the snapshot sections; the state and the read answers are `ReadModelQueries`
 * (readmodels.queries.ts).
 *
 * @example
 *   const models = new ReadModels({ tools: () => manager.catalogue() });
 *   models.setCompany(openedDocument, revisionId); models.applyEvent(record); models.tick();
 */
import {
  EventRecordOpenPayload,
  SpendRecord,
  type Company,
  type EventRecord,
  type Payloads,
} from '../../schema/index.js';
import {
  agentEventTypes,
  applyAgentEvent,
  applyAgentProgress,
  pruneTurnLog,
} from '../agents/agents.projection.js';
import type { OpenQuestion, Paused } from '../agents/agents.state.js';
import { agentRow, agentRows, agentSeat, type AgentRow, type RowContext } from '../agents/agents.rows.js';
import { orgBudgetMeter } from '../tokens/budgets.js';
import { companyModel } from '../org/company.model.js';
import { applyMemoryEvent, memoryEventTypes } from '../memory/memory.projection.js';
import { orgView, seatList } from '../org/org.view.js';
import { applySandboxEvent, liveSandboxes, reconcileSandboxes } from '../sandboxes/sandboxes.projection.js';
import type { SnapshotSection } from '../snapshot/sections.js';
import { SectionHub } from '../snapshot/snapshot-section.js';
import { applySpend, pruneLedger } from '../tokens/tokens.ledger.js';
import { ReadModelQueries, type ReadModelsOptions } from './readmodels.queries.js';

const agentTypes = new Set<string>(agentEventTypes);
const memoryTypes = new Set<string>(memoryEventTypes);

/** The event types each read model folds; the projections read the type from the subject and decode no other. */
export const foldedEventTypes = {
  agents: (type: string): boolean => agentTypes.has(type),
  memory: (type: string): boolean => memoryTypes.has(type),
  sandboxes: (type: string): boolean => type.startsWith('sandbox_run_'),
} as const;

export class ReadModels extends ReadModelQueries {
  /** Seats whose spend changed since the last tick (their rows' token totals and meters moved). */
  private readonly spendDirty = new Set<string>();
  /** Per seat, the status last pushed (or seen): activity, stop reason, budget refusal and month. */
  private readonly lastStatus = new Map<string, string>();
  private readonly hubs: Record<
    'agents' | 'seats' | 'org' | 'tools' | 'tokens' | 'budget' | 'sandboxes',
    SectionHub
  >;
  /**
   * Pushes reuse one context per tick: token totals and meters move on the tick anyway, and a burst of
   * progress events must not rescan the spend window each time. Reads always build a fresh one.
   */
  private pushContext: RowContext | null = null;

  constructor(opts: ReadModelsOptions = {}) {
    super(opts);
    this.hubs = {
      agents: new SectionHub('agents', () => this.agentsMap()),
      seats: new SectionHub('seats', () => seatList(this.company)),
      org: new SectionHub('org', () => orgView(this.company)),
      tools: new SectionHub('tools', () => this.tools()),
      tokens: new SectionHub('tokens', () => this.window.summary()),
      budget: new SectionHub('budget', () => orgBudgetMeter(this.ledger, this.company)),
      sandboxes: new SectionHub('sandboxes', () => liveSandboxes(this.sandboxes)),
    };
  }

  // ---- folding ---------------------------------------------------------------------------------

  /** The active company document changed (every config apply): re-send seats, org, tools, agents. */
  setCompany(document: Company | null, revisionId: string | null): void {
    this.company = companyModel(document, revisionId, this.opts.resolve, this.opts.secret);
    this.pushContext = null;
    const config = this.opts.pushConfigSections === false ? [] : (['seats', 'org', 'tools'] as const);
    for (const name of [...config, 'agents', 'budget'] as const) this.hubs[name].emitCurrent();
    // The whole `agents` section went out: the statuses it carried are the last pushed.
    for (const row of agentRows(this.agents, this.pushRowContext()))
      this.lastStatus.set(row.id, statusOf(row));
  }

  /** Folds one decoded event record; pushes the overlay of the seat it changed. */
  applyEvent(message: unknown): void {
    // The folds check each payload with its type's schema.
    const parsed = EventRecordOpenPayload.safeParse(message);
    if (parsed.success) this.foldEvent(parsed.data);
  }

  /**
   * Folds one checked event record; pushes the overlay of the seat it changed. `auxiliary_spend` is not
   * folded here: its spend record on `svc.spend.auxiliary` (same id) is what counts, so it counts once.
   */
  foldEvent(e: EventRecord): void {
    this.foldAgentEvent(e);
    this.foldMemoryEvent(e);
    this.foldSandboxEvent(e);
  }

  /** A live-view frame of this node's own seats, typed as made (not checked again); pushes its seat's overlay. */
  foldProgress(e: EventRecord, payload: Payloads.AgentTurnProgress): void {
    applyAgentProgress(this.agents, e, payload);
    this.pushDirtyAgents();
  }

  foldAgentEvent(e: EventRecord): void {
    if (!foldedEventTypes.agents(e.type)) return;
    applyAgentEvent(this.agents, e);
    this.pushDirtyAgents();
  }

  foldMemoryEvent(e: EventRecord): void {
    if (foldedEventTypes.memory(e.type)) applyMemoryEvent(this.memory, e);
  }

  foldSandboxEvent(e: EventRecord): void {
    if (!foldedEventTypes.sandboxes(e.type)) return;
    if (applySandboxEvent(this.sandboxes, e)) this.hubs.sandboxes.emitCurrent();
  }

  /**
   * Folds one decoded spend record (`svc.spend.llm` of a turn, `svc.spend.auxiliary` of an auxiliary
   * worker) into the ledger and the live window, once per id (pushed on the next tick). `arrivedMs` is
   * the time its stream stored it (where a record stamped ahead is placed); this node's clock when not given.
   */
  applySpend(message: unknown, arrivedMs?: number): void {
    const parsed = SpendRecord.safeParse(message);
    if (!parsed.success) return;
    this.foldLedger(parsed.data, arrivedMs);
    this.foldWindow(parsed.data, arrivedMs);
  }

  /** Into the token ledger, once per id; a seat whose totals moved is pushed on the next tick. */
  foldLedger(record: SpendRecord, arrivedMs?: number): void {
    const known = this.ledger.ids.has(record.id);
    applySpend(this.ledger, record, arrivedMs);
    if (!known && this.ledger.ids.has(record.id)) this.spendDirty.add(record.handle);
  }

  /** Into the live spend window; a seat whose meter moved is pushed on the next tick. */
  foldWindow(record: SpendRecord, arrivedMs?: number): void {
    if (this.window.add(record, arrivedMs)) this.spendDirty.add(record.handle);
  }

  /** The seed of spend records finished: the budget meter may now report (even zero use). */
  markSpendSeeded(): void {
    if (!this.ledger.reported) {
      this.ledger.reported = true;
      this.hubs.budget.emitCurrent();
    }
  }

  /** Replaces the sandbox set from the durable run record (start, then every 30 s). */
  reconcileSandboxes(runs: readonly unknown[]): void {
    if (reconcileSandboxes(this.sandboxes, runs)) this.hubs.sandboxes.emitCurrent();
  }

  /**
   * A seat's pause record in the coordination store changed (null: removed), or was read at start. The
   * record outlasts the 30-day event history, so a pause older than that still reads `paused`.
   */
  pauseRecord(handle: string, paused: Paused | null): void {
    if (paused) this.pauseRecords.set(handle, paused);
    else this.pauseRecords.delete(handle);
    this.pushRows([handle]);
  }

  /**
   * A seat's open questions as its own log keeps them changed (empty: none open), or were read at start.
   * The log keeps them without age, so a question asked longer ago than the event history still reads `needs`.
   */
  needsRecord(handle: string, open: readonly OpenQuestion[]): void {
    if (open.length > 0) this.needsRecords.set(handle, open);
    else this.needsRecords.delete(handle);
    this.pushRows([handle]);
  }

  /** The tool catalogue changed outside a config apply. */
  toolsChanged(): void {
    this.hubs.tools.emitCurrent();
  }

  /**
   * The shared 5-second tick (rule 5): ages the live window and, when anything changed since the last
   * tick, pushes `tokens`, `budget` and the rows of seats whose spend moved.
   */
  tick(): void {
    this.pushContext = null;
    this.window.age();
    if (this.window.changed || this.spendDirty.size > 0) {
      this.window.changed = false;
      this.hubs.tokens.emitCurrent();
      this.hubs.budget.emitCurrent();
      const handles = [...this.spendDirty];
      this.spendDirty.clear();
      this.pushRows(handles);
    }
    this.pushRows(this.statusMoved());
    pruneLedger(this.ledger);
    pruneTurnLog(this.agents, this.now());
  }

  // ---- pushes ----------------------------------------------------------------------------------

  private pushRowContext(): RowContext {
    return (this.pushContext ??= this.rowContext());
  }

  private pushDirtyAgents(): void {
    const handles = [...this.agents.dirty];
    this.agents.dirty.clear();
    this.pushRows(handles);
  }

  /**
   * Seats whose status moved with no event of their own since it was last pushed: the org meter crossing
   * its cap stops every seat, a new budget month frees them, a placement change stops or starts one.
   * A seat seen for the first time is only noted (the snapshot and the apply's push carry it).
   */
  private statusMoved(): string[] {
    const moved: string[] = [];
    for (const row of agentRows(this.agents, this.pushRowContext())) {
      const status = statusOf(row);
      const last = this.lastStatus.get(row.id);
      if (last === undefined) this.lastStatus.set(row.id, status);
      else if (last !== status) moved.push(row.id);
    }
    return moved;
  }

  /** Merge overlays: whole rows, so `stopped_reason`, `paused` and `live_call` are always present. */
  private pushRows(handles: string[]): void {
    if (handles.length === 0) return;
    const ctx = this.pushRowContext();
    const overlay: Record<string, AgentRow> = {};
    for (const handle of handles) {
      const seat = agentSeat(this.company, handle);
      if (seat && seat.handle === handle) {
        const row = agentRow(seat, this.agents.seats.get(handle), ctx);
        overlay[handle] = row;
        this.lastStatus.set(handle, statusOf(row));
      }
    }
    if (Object.keys(overlay).length > 0) this.hubs.agents.emit(overlay, 'merge');
  }

  /** The whole `agents` section, read fresh. */
  private agentsMap(): Record<string, AgentRow> {
    return Object.fromEntries(agentRows(this.agents, this.rowContext()).map((row) => [row.id, row]));
  }

  /** The sections this node contributes to the snapshot and the socket. */
  sections(): SnapshotSection[] {
    return Object.values(this.hubs);
  }
}

/** What a seat's row says of its state beyond its own events (compared from tick to tick). */
const statusOf = (row: AgentRow): string =>
  `${row.activity}|${row.stopped_reason ?? ''}|${row.budget.refused ?? ''}|${row.budget.window_start}`;
