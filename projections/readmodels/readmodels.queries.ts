/**
 * The read side of `ReadModels` (readmodels.ts): the read models' state, which the projection runner
 * installs (`readmodels.boot.ts`), and the answers to the read questions over it. `ReadModels` adds the
 * folds and the snapshot pushes.
 */
import { toolEntryOf, type Payloads, type Resolver, type ToolEntry } from '../../schema/index.js';
import type { z } from 'zod';
import { agentActivity } from '../agents/agents.activity.js';
import { loggedTurn } from '../agents/agents.turn-log.js';
import {
  agentRow,
  agentRows,
  agentSeat,
  llmHistory,
  type AgentRow,
  type RowContext,
} from '../agents/agents.rows.js';
import {
  emptyAgentsState,
  type AgentsState,
  type HistoryRow,
  type OpenQuestion,
  type Paused,
} from '../agents/agents.state.js';
import { budgetReport } from '../tokens/budgets.js';
import { emptyCompany, type CompanyModel } from '../org/company.model.js';
import {
  emptyMemoryState,
  memoriesShown,
  memoryEpisode,
  memoryView,
  type MemoryState,
  type MemoryStoreReader,
  type StoredMemory,
} from '../memory/memory.projection.js';
import { orgView } from '../org/org.view.js';
import { emptySandboxesState, sandboxRuns, type SandboxesState } from '../sandboxes/sandboxes.projection.js';
import { SpendWindow } from '../tokens/spend-window.js';
import { emptyLedger, type TokenLedger } from '../tokens/tokens.ledger.js';
import { rollupParams, tokenBreakdown } from '../tokens/tokens.rollup.js';
import { seriesParams, tokenSeries } from '../tokens/tokens.series.js';

export interface Coverage {
  nodes: Array<{ id: string; answered: boolean; error?: string }>;
  complete: boolean;
}

export interface ReadModelsOptions {
  /** The tool catalogue. An entry handed out is never changed after (its check is kept by the entry). */
  readonly tools?: () => readonly unknown[];
  /** From the fleet's lease table: false when no node holds the seat. Default: every seat is placed. */
  readonly placed?: (handle: string) => boolean;
  readonly nodeId?: string;
  readonly now?: () => number;
  /**
   * Whether `setCompany` itself pushes `seats`, `org` and `tools` (default true). The events hub re-sends
   * those three on every `revision_applied`, so the node wiring turns this off to send them once.
   */
  readonly pushConfigSections?: boolean;
  /** The seats' personal memory store (the turn engine's); without it memory rows carry no content. */
  readonly memoryStore?: MemoryStoreReader;
  /** The seats' counterparty profiles as their store keeps them (each checked as the view reads it). */
  readonly profileStore?: { profiles(agentId: string): Promise<readonly unknown[]> };
  /** The seats' learned skills as their store keeps them (each checked as the view reads it). */
  readonly skillStore?: { skills(agentId: string): Promise<readonly unknown[]> };
  /** Answers a `${VAR}` in the company `timezone` (secret store, then environment); unresolved without it. */
  readonly resolve?: Resolver;
  /** Whether the secret store answers a name: a timezone holding one is shown as written. Default every name. */
  readonly secret?: (name: string) => boolean;
}

export abstract class ReadModelQueries {
  // Each read model's state is owned by its own projection (see `readmodels.boot.ts`).
  private agentsState: AgentsState = emptyAgentsState();
  private memoryState: MemoryState = emptyMemoryState();
  private sandboxesState: SandboxesState = emptySandboxesState();
  private ledgerState: TokenLedger;
  private windowState: SpendWindow;
  protected company: CompanyModel = emptyCompany;
  /** Each seat's pause record in the coordination store (read beside the events: see `pauseRecord`). */
  protected readonly pauseRecords = new Map<string, Paused>();
  /** Each seat's open questions as its own log keeps them (read beside the events: see `needsRecord`). */
  protected readonly needsRecords = new Map<string, readonly OpenQuestion[]>();
  protected readonly now: () => number;
  protected readonly opts: ReadModelsOptions;

  constructor(opts: ReadModelsOptions = {}) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.ledgerState = this.emptyLedger();
    this.windowState = this.emptyWindow();
  }

  get agents(): AgentsState {
    return this.agentsState;
  }

  get memory(): MemoryState {
    return this.memoryState;
  }

  get sandboxes(): SandboxesState {
    return this.sandboxesState;
  }

  get ledger(): TokenLedger {
    return this.ledgerState;
  }

  get window(): SpendWindow {
    return this.windowState;
  }

  get companyModel(): CompanyModel {
    return this.company;
  }

  // ---- state the projection runner owns (see `readmodels.boot.ts`) -------------------------------

  emptyLedger(): TokenLedger {
    return emptyLedger(this.now);
  }

  emptyWindow(): SpendWindow {
    return new SpendWindow({ now: this.now });
  }

  /** Answers and folds use these from now on (a boot, a checkpoint load or a rebuild). */
  useAgents(state: AgentsState): AgentsState {
    return (this.agentsState = state);
  }

  useMemory(state: MemoryState): MemoryState {
    return (this.memoryState = state);
  }

  useSandboxes(state: SandboxesState): SandboxesState {
    return (this.sandboxesState = state);
  }

  useLedger(state: TokenLedger): TokenLedger {
    return (this.ledgerState = state);
  }

  useWindow(state: SpendWindow): SpendWindow {
    return (this.windowState = state);
  }

  // ---- answers ---------------------------------------------------------------------------------

  /** A fresh context for agent rows (pushes reuse one per tick: see `ReadModels.pushRowContext`). */
  protected rowContext(): RowContext {
    return {
      company: this.company,
      placed: this.opts.placed ?? (() => true),
      tokens: this.window.totalsBySeat(),
      budgets: budgetReport(this.ledger, this.company),
      now: this.now(),
      pauseRecord: (handle) => this.pauseRecords.get(handle) ?? null,
      needsRecord: (handle) => this.needsRecords.get(handle) ?? [],
    };
  }

  /**
   * This node's answer alone. Asked through the node's registry, `agent` is scattered (http/scatter.ts)
   * and the fleet's coverage replaces this one.
   */
  coverage(): Coverage {
    return { nodes: [{ id: this.opts.nodeId ?? 'local', answered: true }], complete: true };
  }

  /** `/agents`. */
  agentList(): AgentRow[] {
    return agentRows(this.agents, this.rowContext());
  }

  /** The handle of the agent seat of the active document that `id` names (handle, role name or UUID). */
  agentHandle(id: string): string | null {
    return agentSeat(this.company, id)?.handle ?? null;
  }

  /** `/agents/{id}`: null when no agent seat has that handle or role name. */
  agent(id: string): (AgentRow & { llm_history: HistoryRow[]; coverage: Coverage }) | null {
    const seat = agentSeat(this.company, id);
    if (!seat) return null;
    const row = agentRow(seat, this.agents.seats.get(seat.handle), this.rowContext());
    return { ...row, llm_history: llmHistory(this.agents, seat.handle), coverage: this.coverage() };
  }

  activity(query: URLSearchParams) {
    return agentActivity(this.agents, this.company, query, this.now());
  }

  /**
   * `/agents/{id}/memory`: null when the seat is unknown. Personal memories come from the memory store when
   * one is wired (a failing store degrades that section alone to the events' rows).
   */
  async memoryOf(id: string) {
    const seat = agentSeat(this.company, id);
    if (!seat) return null;
    let stored: readonly StoredMemory[] | null = null;
    if (this.opts.memoryStore && seat.agent_id !== null) {
      stored = await this.opts.memoryStore
        .recall(seat.agent_id, {
          query: null,
          kind: null,
          limit: memoriesShown,
          include_expired: true,
          now: new Date(this.now()),
        })
        .catch(() => null);
    }
    let profiles: readonly unknown[] | null = null;
    if (this.opts.profileStore && seat.agent_id !== null)
      profiles = await this.opts.profileStore.profiles(seat.agent_id).catch(() => null);
    let skills: readonly unknown[] | null = null;
    if (this.opts.skillStore && seat.agent_id !== null)
      skills = await this.opts.skillStore.skills(seat.agent_id).catch(() => null);
    return memoryView(this.memory, seat, this.now(), stored, profiles, skills);
  }

  episode(id: string, episodeId: string): z.infer<typeof Payloads.EpisodeRecorded> | null | undefined {
    const seat = agentSeat(this.company, id);
    if (!seat) return undefined;
    return memoryEpisode(this.memory, seat.handle, episodeId);
  }

  /**
   * The seat filter of the tokens reads (`agent_role`, which spend records match by role name or handle): a
   * seat's agent_id UUID, in any case, is read as that seat's handle, the seat found as `/agents/{id}` finds
   * it (a handle or role name first); anything else, a UUID naming no seat included, is left as given.
   */
  private spendSeat(filter: string | null): string | null {
    if (filter === null) return null;
    const seat = agentSeat(this.company, filter);
    return seat !== null && seat.agent_id === filter.toLowerCase() ? seat.handle : filter;
  }

  /** `/tokens/breakdown`; `agent_role` is echoed as given. */
  tokenBreakdown(query: URLSearchParams) {
    const params = rollupParams(query);
    const answer = tokenBreakdown(
      this.ledger,
      { ...params, agent_role: this.spendSeat(params.agent_role) },
      (handle, turnId) => loggedTurn(this.agents, handle, turnId),
    );
    return { ...answer, agent_role: params.agent_role ?? '' };
  }

  /** `/tokens/series`; `{invalid}` for an unknown bucket or band. `agent_role` is echoed as given. */
  tokenSeries(query: URLSearchParams) {
    const params = seriesParams(query);
    if ('invalid' in params) return params;
    return {
      ...tokenSeries(
        this.ledger,
        { ...params, agent_role: this.spendSeat(params.agent_role) },
        this.company.timezone,
      ),
      agent_role: params.agent_role ?? '',
      timezone: this.company.shown_timezone,
    };
  }

  budgets() {
    return budgetReport(this.ledger, this.company);
  }

  org() {
    return orgView(this.company);
  }

  /**
   * Each catalogue entry as checked (null: left out), by the entry: the catalogue hands out the same entries
   * until its tools change, so 10,000 tools are checked once, not at every push of the section.
   */
  private readonly checkedTools = new WeakMap<object, ToolEntry | null>();

  /** The catalogue, each entry checked against `ToolEntry` (a malformed one is left out). */
  tools(): ToolEntry[] {
    const source = this.opts.tools?.() ?? [];
    const out: ToolEntry[] = [];
    for (const t of source) {
      const known = typeof t === 'object' && t !== null ? this.checkedTools.get(t) : undefined;
      if (known === null) continue;
      if (known !== undefined) {
        out.push(known);
        continue;
      }
      const checked = toolEntryOf(t);
      if (typeof t === 'object' && t !== null) this.checkedTools.set(t, checked);
      if (checked !== null) out.push(checked);
    }
    return out;
  }

  sandboxRuns() {
    return { runs: sandboxRuns(this.sandboxes) };
  }
}
