/**
 * The knowledge base as the routes and tools use it: reads over this node's projection and the org
 * chart's containers, and writes sent as `pages.write` commands whose answer is read back once this
 * node's projection has folded it (a write's caller reads its own write on any node).
 */
import { sendCommand, type Bus } from '../../bus/index.js';
import {
  Commands,
  containersOf,
  type Container,
  type PageChangeInput,
  type PageRefusalCode,
  type ServiceCaller,
} from '../../schema/index.js';
import type { RunningProjection } from '../runner/runner.js';
import {
  findContainer,
  pageDetail,
  resolvePage,
  writeTarget,
  type PageDetail,
  type PageList,
  type PageListQuery,
} from './pages.queries.js';
import { pagesSearch, type PagesMeaning } from './pages.search.js';
import type { Page, PagesState } from './pages.state.js';

/** The active company document and the epoch it was activated at (null before the first revision). */
export type ActiveChart = () => { readonly document: unknown; readonly epoch: number } | null;

export type PageWriteResult =
  | {
      readonly ok: true;
      readonly repeated: boolean;
      readonly type: 'page.create' | 'page.update' | 'page.delete' | 'page.comment';
      readonly page_id: string;
      readonly version: number;
      readonly comment_id: string | null;
      /** The page as folded after the write; null once deleted. */
      readonly page: PageDetail | null;
    }
  | { readonly ok: false; readonly error: PageRefusalCode; readonly detail: string };

export interface PagesService {
  state(): PagesState;
  containers(): Container[];
  /** The epoch of the revision the containers were read from (0 before the first revision). */
  chartEpoch(): number;
  /** A page by id or `CONTAINER/Title`. */
  resolve(ref: string): Page | null;
  /**
   * The id of the page `ref` names for a write under `opId`: the page the op_id was first decided on when
   * `ref` named it then (renamed or deleted since), else the live page `ref` names; null for neither.
   */
  target(ref: string, opId: string): string | null;
  write(by: ServiceCaller, opId: string, change: PageChangeInput): Promise<PageWriteResult>;
  /**
   * A page of the listing, or of a search (`q`): by words, then by meaning when `providers.embeddings` is
   * on; `caller` is who searched (for the embeddings' spend), null for no seat.
   */
  list(query: PageListQuery, caller: ServiceCaller | null): Promise<PageList>;
}

/** How long a write waits for this node's projection to fold what the writer decided. */
const readBackMs = 10_000;

export function createPagesService(opts: {
  readonly bus: Bus;
  readonly projection: RunningProjection<PagesState>;
  readonly chart: ActiveChart;
  /** Search by meaning (`providers.embeddings`); absent: by words only. */
  readonly meaning?: PagesMeaning;
}): PagesService {
  const search = pagesSearch(opts.meaning);
  const state = (): PagesState => opts.projection.state();
  const containers = (): Container[] => containersOf(opts.chart()?.document ?? null);
  const keys = (): string[] => containers().map((c) => c.key);
  const resolve = (ref: string): Page | null => resolvePage(state(), ref, keys());
  return {
    state,
    containers,
    chartEpoch: () => opts.chart()?.epoch ?? 0,
    resolve,
    target: (ref, opId) => writeTarget(state(), ref, opId, keys()),
    list: (query, caller) => search(state(), query, caller),
    async write(by, opId, asked) {
      // A container key in any case names its container, as the reads match it: the create (and so its
      // retry, compared by container) carries the key as declared.
      const change =
        asked.type === 'create'
          ? { ...asked, container: findContainer(keys(), asked.container) ?? asked.container }
          : asked;
      const reply = await sendCommand(opts.bus, Commands.pages.write, { op_id: opId, by, change });
      const outcome = reply.outcome;
      if (!outcome.ok) return { ok: false, error: outcome.error, detail: outcome.detail };
      await opts.projection.when((s) => s.outcomes.has(opId), readBackMs);
      const page = state().pages.get(outcome.page_id);
      return {
        ok: true,
        repeated: reply.repeated,
        type: outcome.type,
        page_id: outcome.page_id,
        version: outcome.version,
        comment_id: outcome.comment_id,
        page: page ? pageDetail(state(), page) : null,
      };
    },
  };
}

/** The writer's view of the projection (`actors/pages`). */
export function pagesLedger(projection: RunningProjection<PagesState>) {
  const outcome = (opId: string) => projection.state().outcomes.get(opId) ?? null;
  return {
    outcome,
    async decided(opId: string, timeoutMs: number) {
      await projection.when((s) => s.outcomes.has(opId), timeoutMs);
      return outcome(opId);
    },
  };
}
