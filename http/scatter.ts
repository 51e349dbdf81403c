/**
 * Scatter reads (spec "Read routes", the coverage rule; Versioning 4): a history question or a per-node
 * fact is asked of every live node over bus request/reply, each within the fleet read budget, and the
 * answers are merged. `coverage{nodes[{id, answered, error}], complete}` names every node of the roster;
 * `complete` is true only when the roster was read and every node answered. A node speaking another
 * scatter-protocol version is named with that reason and none of its data is merged. An answer larger than
 * one bus message comes in parts (`Bus.requestLarge`) and is merged only whole.
 *
 * Each node answers its peers from its own (unscattered) questions on `svc.scatter.<node>`; the guard
 * was passed on the node that was asked, so a peer answers as the internal actor `scatter`.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Bus, Subscription } from '../bus/index.js';
import { ReservedActor, type Coverage } from '../schema/index.js';
import { ApiError } from './api-error.js';
import type { Question, QuestionRegistry } from './routes/query.routes.js';

export const SCATTER_VERSION = 1;
export const scatterSubject = (node: string): string => `svc.scatter.${node}`;
/** The spec's fleet read budget: how long one node may take to answer. */
export const fleetReadBudgetMs = 2_000;

const ScatterRequest = z.object({
  v: z.number().int(),
  what: z.string(),
  params: z.array(z.tuple([z.string(), z.string()])),
});
const ScatterVersion = z.object({ v: z.number().int() });
const ScatterReply = z.union([
  z.object({ v: z.number().int(), ok: z.literal(true), answer: z.unknown() }),
  z.object({ v: z.number().int(), ok: z.literal(false), error: z.string() }),
]);
type ScatterReply = z.infer<typeof ScatterReply>;

/** One node's answer, merged into the answer the asker gets. */
export interface NodeAnswer {
  readonly node: string;
  readonly answer: unknown;
}
/** Joins the answers of every node that answered (the asking node's own first). */
export type Merge = (answers: readonly NodeAnswer[], params: URLSearchParams) => unknown;

export interface ScatterOptions {
  readonly bus: Bus;
  readonly node: string;
  /** Live node ids (this one included or not), or null when the roster cannot be read. */
  readonly roster: () => Promise<readonly string[] | null>;
  readonly logger: Logger;
  /** The questions to scatter and how their answers merge; every other question stays local. */
  readonly merges: ReadonlyMap<string, Merge>;
  readonly budgetMs?: number;
  /** The protocol version this node speaks (tests speak another). */
  readonly version?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const peerActor = { id: ReservedActor.Scatter, kind: 'operator' } as const;

/**
 * Makes every question of `registry` named in `merges` ask the whole fleet (in place: the routes and
 * the socket hold this map) and answers peers from the questions as they were. Returns the responder.
 */
export function scatterFleet(registry: Map<string, Question>, opts: ScatterOptions): Subscription {
  const local: QuestionRegistry = new Map(registry);
  const { questions, answerPeers } = scatterQuestions(local, opts);
  for (const [what, question] of questions) registry.set(what, question);
  return answerPeers();
}

/**
 * The registry with every question named in `merges` asked of the whole fleet, and the responder that
 * answers peers from `local`. `local` itself is left as it is.
 */
export function scatterQuestions(
  local: QuestionRegistry,
  opts: ScatterOptions,
): { questions: Map<string, Question>; answerPeers: () => Subscription } {
  const version = opts.version ?? SCATTER_VERSION;
  const budget = opts.budgetMs ?? fleetReadBudgetMs;
  const log = opts.logger.child({ component: 'scatter' });

  const askPeer = async (
    peer: string,
    what: string,
    params: URLSearchParams,
  ): Promise<{ answer: unknown } | { error: string }> => {
    const request = { v: version, what, params: [...params.entries()] };
    let reply: ScatterReply;
    try {
      // A node's answer may be larger than one bus message (an agent's history rows): it comes in parts.
      const msg = await opts.bus.requestLarge(scatterSubject(peer), encoder.encode(JSON.stringify(request)), {
        timeoutMs: budget,
      });
      const body: unknown = JSON.parse(decoder.decode(msg.data));
      // The version first: another version's reply may have another shape, and is named by its version.
      const spoken = ScatterVersion.safeParse(body);
      if (spoken.success && spoken.data.v !== version)
        return { error: `speaks scatter protocol ${spoken.data.v}; this node speaks ${version}` };
      const parsed = ScatterReply.safeParse(body);
      if (!parsed.success) return { error: 'unreadable answer' };
      reply = parsed.data;
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      if (name === 'NoRespondersError') return { error: 'no responder' };
      if (name === 'RequestTimeoutError') return { error: `no answer within ${budget} ms` };
      return { error: error instanceof Error ? error.message : String(error) };
    }
    return reply.ok ? { answer: reply.answer } : { error: reply.error };
  };

  const scattered = (what: string, question: Question, merge: Merge): Question => ({
    ...question,
    async answer(params, ctx) {
      const [mine, roster] = await Promise.all([
        question.answer(params, ctx),
        opts.roster().catch((error: unknown) => {
          log.warn({ err: error }, 'scatter roster unreadable');
          return null;
        }),
      ]);
      const peers = [...new Set(roster ?? [])].filter((node) => node !== opts.node).sort();
      const replies = await Promise.all(peers.map((peer) => askPeer(peer, what, params)));
      const answers: NodeAnswer[] = [{ node: opts.node, answer: mine }];
      const nodes: Coverage['nodes'] = [{ id: opts.node, answered: true }];
      replies.forEach((reply, i) => {
        const id = peers[i]!;
        if ('answer' in reply) {
          answers.push({ node: id, answer: reply.answer });
          nodes.push({ id, answered: true });
        } else nodes.push({ id, answered: false, error: reply.error });
      });
      const coverage: Coverage = { nodes, complete: roster !== null && nodes.every((n) => n.answered) };
      const merged = merge(answers, params);
      return merged !== null && typeof merged === 'object' && !Array.isArray(merged)
        ? { ...merged, coverage }
        : merged;
    },
  });

  const questions = new Map(local);
  for (const [what, merge] of opts.merges) {
    const question = local.get(what);
    if (question) questions.set(what, scattered(what, question, merge));
  }

  const answerPeers = (): Subscription =>
    opts.bus.reply(scatterSubject(opts.node), async (msg) => {
      const respond = (reply: ScatterReply): Uint8Array => encoder.encode(JSON.stringify(reply));
      let request: z.infer<typeof ScatterRequest>;
      try {
        request = ScatterRequest.parse(JSON.parse(decoder.decode(msg.data)));
      } catch {
        return respond({ v: version, ok: false, error: 'unreadable request' });
      }
      // Another version: say which this node speaks, answer nothing.
      if (request.v !== version) return respond({ v: version, ok: false, error: 'version' });
      const question = local.get(request.what);
      if (!question || !opts.merges.has(request.what))
        return respond({ v: version, ok: false, error: `no source answers "${request.what}"` });
      try {
        const answer = await question.answer(new URLSearchParams(request.params), {
          actor: peerActor,
          log,
        });
        return respond({ v: version, ok: true, answer });
      } catch (error) {
        // An API error's message is its code and detail (never a credential); anything else stays in the log.
        const detail = error instanceof ApiError ? error.message : 'failed';
        log.warn({ err: error, what: request.what }, 'scatter answer failed');
        return respond({ v: version, ok: false, error: detail });
      }
    });

  return { questions, answerPeers };
}
