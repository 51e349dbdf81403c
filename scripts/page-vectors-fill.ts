/**
 * The knowledge base's background fill (ops/knowledge-base.md "Search"): while `providers.embeddings` is on,
 * the node holding the `page_vectors` duty embeds, a batch each tick, the pages whose current vector the
 * bucket lacks, so turning embeddings on over a large knowledge base does not leave the work to the first
 * searches, and a page written since is embedded before anyone searches for it. One holder at a time, so the
 * fleet does not embed (and pay for) a page twice; a search still embeds what the fill has not reached.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { acquireDuty, releaseDuty, renewDuty, startPeriodic, type Held } from '../actors/index.js';
import type { Kv } from '../bus/index.js';
import type { PagesEmbedder, PagesState, PageVectors } from '../projections/index.js';
import { failureLog } from '../schema/index.js';

export const PAGE_VECTORS_DUTY = 'page_vectors';
/** A tick; with 256 pages each, 10,000 pages take about ten minutes. */
const FILL_EVERY_MS = 15_000;
/** The duty's lease: a holder that stops ticking gives it up to another node within this. */
const FILL_LEASE_MS = 60_000;
/** Pages embedded per tick: one request of the embeddings wire. */
const FILL_BATCH = 256;

export interface PageVectorsFill {
  /** One tick now (or the one under way): how many pages it embedded. */
  run(): Promise<number>;
  stop(): Promise<void>;
}

export function startPageVectorsFill(opts: {
  readonly coord: Kv;
  readonly nodeId: string;
  readonly vectors: PageVectors;
  /** The embedder while `providers.embeddings` is usable; null: nothing to fill. */
  readonly embedder: () => PagesEmbedder | null;
  readonly pages: () => PagesState;
  readonly logger: Logger;
  /** 0: no timer (tests tick with `run`). */
  readonly everyMs?: number;
  readonly batch?: number;
  readonly now?: () => Date;
}): PageVectorsFill {
  const now = opts.now ?? (() => new Date());
  const me = { duty: PAGE_VECTORS_DUTY, node: opts.nodeId, instance: randomUUID() };
  const failures = failureLog(opts.logger);
  let held: Held | null = null;

  /** Renews the duty, or takes it when nobody holds it; whether this node holds it now. */
  async function holds(): Promise<boolean> {
    const at = now();
    if (held !== null) held = await renewDuty(opts.coord, held, at, FILL_LEASE_MS);
    if (held === null) {
      const result = await acquireDuty(opts.coord, me, at, FILL_LEASE_MS);
      held = result.won ? result.held : null;
    }
    return held !== null;
  }

  const dutyUnread = (error: unknown): void =>
    opts.logger.error({ err: error }, 'page vector fill could not read its duty');
  let warmed = false;
  /** Every node, once: the vectors the bucket holds, read ahead of the first search that would wait for them. */
  async function warm(embedder: PagesEmbedder): Promise<void> {
    warmed = true;
    const started = performance.now();
    const pages = [...opts.pages().pages.values()];
    const held = await opts.vectors.warm(pages, embedder);
    const ms = Math.round(performance.now() - started);
    opts.logger.info({ event: 'page_vectors_read', pages: pages.length, held, ms }, 'page vectors read');
  }

  const job = startPeriodic(
    async () => {
      const embedder = opts.embedder();
      if (embedder === null) return 0;
      if (!warmed) await warm(embedder);
      if (!(await holds())) return 0;
      try {
        // Spent on no seat: the fill serves every search.
        const made = await opts.vectors.fill(
          [...opts.pages().pages.values()],
          embedder,
          null,
          opts.batch ?? FILL_BATCH,
        );
        failures.succeeded();
        if (made > 0) opts.logger.info({ event: 'page_vectors_filled', pages: made }, 'page vectors filled');
        return made;
      } catch (error) {
        failures.failed(error, 'the pages wait for the next fill or a search');
        return 0;
      }
    },
    {
      everyMs: opts.everyMs ?? FILL_EVERY_MS,
      onError: dutyUnread,
    },
  );
  // The first tick at once, not a period after start: the cache is warm and the duty taken early.
  if ((opts.everyMs ?? FILL_EVERY_MS) > 0) void job.run().catch(dutyUnread);
  return {
    run: job.run,
    async stop() {
      await job.stop();
      // Handed over at once rather than after the lease runs out.
      if (held !== null) await releaseDuty(opts.coord, held, now()).catch(() => undefined);
      held = null;
    },
  };
}
