/**
 * The integration actors' host: one `integrationMachine` per setup kind, rebuilt at start from the
 * integrations read model (passes in flight, the newest finished provision or check) and kept current
 * by its live records; it serves `svc.cmd.integration.{provision,check,disconnect}` on any node. On a
 * command it reads the configuration (the pass source), lets the machine decide, and runs only the
 * effects the machine names: run the pass (its start and finish appended to SVC_INTEGRATIONS), reply
 * that there is nothing to disconnect, store minted seat tokens, abandon the passes a restart cut.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createActor, type Actor } from 'xstate';
import { serveCommand, Subjects, type Bus, type StoredMessage, type Subscription } from '../../bus/index.js';
import {
  callerOf,
  Commands,
  IntegrationRecord,
  IntegrationVerb,
  PassRefused,
  type IntegrationCommand,
  type IntegrationReply,
  type KindSpec,
  type PassFinished,
  type PassRun,
  type PassSource,
  type PassStarted,
} from '../../schema/index.js';
import { integrationMachine, type IntegrationEvent } from './integration.machine.js';
import type { PassRequest } from './pass.host.js';
import type { RegisteredHook } from './vendors/pass-context.js';

/** What the host reads the actors' history from: the integrations read model. */
export interface IntegrationRecords {
  /**
   * Passes started and not finished, per kind the finished ones, newest first, and per kind the webhooks
   * its passes registered and last saw at the vendor.
   */
  state(): {
    started: ReadonlyMap<string, PassStarted>;
    runs: ReadonlyMap<string, readonly PassRun[]>;
    webhooks: ReadonlyMap<string, readonly RegisteredHook[]>;
  };
  /** Resolves once the fold holds what the stream held when called (bounded). */
  caughtUp(): Promise<void>;
  /** Every record folded after the boot replay; returns the unsubscribe. */
  onRecord(listener: (message: StoredMessage) => void): () => void;
}

export interface IntegrationActorsOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly kinds: readonly KindSpec[];
  readonly records: IntegrationRecords;
  readonly source: PassSource;
  readonly passes: { run(request: PassRequest): Promise<PassRun> };
  /** True when minted credentials can be sealed on this node (Tier A lists a keyring). */
  readonly keyring: boolean;
}

export interface IntegrationActors {
  /** The state each actor reads (`ready`, `degraded`, ...), by kind. */
  states(): Record<string, string>;
  stop(): Promise<void>;
}

type Effect =
  | { type: 'run_pass'; run_id: string; keep_seat_tokens: boolean }
  | { type: 'reply_not_configured' }
  | { type: 'store_seat_tokens' }
  | { type: 'abandon_passes'; run_ids: string[] };

const sameHooks = (a: readonly RegisteredHook[], b: readonly RegisteredHook[]): boolean =>
  a.length === b.length && a.every((h) => b.some((o) => o.url === h.url && o.id === h.id));

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CUT_REASON = 'the node running this pass stopped before it finished';

export async function startIntegrationActors(opts: IntegrationActorsOptions): Promise<IntegrationActors> {
  const { bus, logger } = opts;
  /** Effects named by the transition in progress (sends are synchronous: one list per send). */
  let named: Effect[] = [];
  const actors = new Map<string, Actor<typeof integrationMachine>>();
  for (const spec of opts.kinds) {
    const machine = integrationMachine.provide({
      actions: {
        run_pass: (_, p) =>
          void named.push({ type: 'run_pass', run_id: p.run_id, keep_seat_tokens: p.keep_seat_tokens }),
        reply_not_configured: () => void named.push({ type: 'reply_not_configured' }),
        store_seat_tokens: () => void named.push({ type: 'store_seat_tokens' }),
        abandon_passes: (_, p) => void named.push({ type: 'abandon_passes', run_ids: p.run_ids }),
      },
    });
    const actor = createActor(machine, {
      input: { kind: spec.key, seatTokens: spec.seat_token !== undefined, block: spec.block_path !== null },
    });
    actor.start();
    actors.set(spec.key, actor);
  }
  const send = (kind: string, event: IntegrationEvent): Effect[] => {
    named = [];
    actors.get(kind)?.send(event);
    const out = named;
    named = [];
    return out;
  };

  const append = async (
    kind: string,
    record: PassStarted | PassFinished | Extract<IntegrationRecord, { type: 'webhooks' }>,
  ): Promise<void> => {
    await bus.publish(Subjects.integration(kind, record.type), encoder.encode(JSON.stringify(record)));
  };

  /** A recorded start or finish (replayed or live, any node's) moves its actor; it names no effect. */
  const recorded = (message: StoredMessage): void => {
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(message.data));
    } catch {
      return;
    }
    const parsed = IntegrationRecord.safeParse(value);
    if (!parsed.success) return;
    const r = parsed.data;
    if (r.type === 'pass_started')
      send(r.kind, { type: 'integration.recorded.started', run_id: r.run_id, mode: r.mode, node: r.node });
    else if (r.type === 'pass_finished')
      send(r.run.kind, {
        type: 'integration.recorded.finished',
        run_id: r.run.id,
        mode: r.run.mode,
        status: r.run.status,
      });
  };

  // 1. rebuild: what the stream says is in flight, and each kind's newest provision or check
  const history = opts.records.state();
  for (const [kind, runs] of history.runs) {
    const last = runs.find((run) => run.mode !== 'disconnect');
    if (last)
      send(kind, {
        type: 'integration.recorded.finished',
        run_id: last.id,
        mode: last.mode,
        status: last.status,
      });
  }
  for (const start of history.started.values())
    send(start.kind, {
      type: 'integration.recorded.started',
      run_id: start.run_id,
      mode: start.mode,
      node: start.node,
    });
  const unfollow = opts.records.onRecord(recorded);

  // 2. this node restarted: the passes it had in flight will never finish; each actor names them
  for (const spec of opts.kinds) {
    for (const effect of send(spec.key, { type: 'integration.node.started', node: opts.nodeId })) {
      if (effect.type !== 'abandon_passes') continue;
      for (const runId of effect.run_ids) {
        const start = history.started.get(runId);
        if (!start) continue;
        const run: PassRun = {
          id: runId,
          kind: start.kind,
          mode: start.mode,
          node: start.node,
          actor: start.actor,
          started_at: start.started_at,
          finished_at: new Date().toISOString(),
          status: 'failed',
          reason: CUT_REASON,
          steps: [{ name: 'stopped', outcome: 'failed', detail: CUT_REASON }],
        };
        await append(spec.key, { type: 'pass_finished', run });
        logger.warn({ event: 'setup_pass_abandoned', kind: spec.key, run_id: runId }, 'pass abandoned');
      }
    }
  }

  // 3. commands
  /**
   * Passes that change things at the vendor (provision, disconnect) run one at a time per kind on this
   * node, each reading the configuration after the one before it finished: two run at once would both
   * see the webhook missing and register it twice (every event delivered twice), and both mint a token
   * per seat (one set orphaned at the vendor). A check only reads and is not held up.
   */
  const lanes = new Map<string, Promise<unknown>>();
  function inLane(kind: string, mode: IntegrationVerb, work: () => Promise<IntegrationReply>) {
    if (mode === IntegrationVerb.Check) return work();
    const before = lanes.get(kind);
    if (before !== undefined)
      logger.debug({ event: 'setup_pass_queued', kind, mode }, 'waiting for the pass in progress');
    const mine = (before ?? Promise.resolve()).catch(() => undefined).then(work);
    lanes.set(kind, mine);
    const done = (): void => void (lanes.get(kind) === mine && lanes.delete(kind));
    void mine.then(done, done);
    return mine;
  }

  async function handle(mode: IntegrationVerb, command: IntegrationCommand): Promise<IntegrationReply> {
    const spec = opts.kinds.find((k) => k.key === command.kind);
    if (!spec) {
      return {
        outcome: 'refused',
        refusal: {
          status: 404,
          error: 'not_found',
          detail: `no integration kind ${JSON.stringify(command.kind)}`,
          hint: `Kinds are ${opts.kinds.map((k) => k.key).join(', ')}.`,
          extra: {},
        },
      };
    }
    const { facts, input, revisionId } = await opts.source.prepare(spec.key);
    send(spec.key, { type: 'integration.observed', facts });
    const runId = randomUUID();
    const decided = send(spec.key, {
      type: 'integration.command',
      mode,
      run_id: runId,
      node: opts.nodeId,
      keyring: opts.keyring,
    });
    const effect = decided[0];
    if (!effect || effect.type !== 'run_pass') return { outcome: 'not_configured' };
    const startedAt = new Date().toISOString();
    await append(spec.key, {
      type: 'pass_started',
      run_id: runId,
      kind: spec.key,
      mode,
      node: opts.nodeId,
      actor: command.actor,
      started_at: startedAt,
    });
    const minted: Array<{ seat: string; value: string }> = [];
    // What earlier passes (this node's included, a moment ago) registered: the fold first reads them.
    await opts.records.caughtUp();
    const hooks = opts.records.state().webhooks.get(spec.key) ?? [];
    let remembered: readonly RegisteredHook[] = hooks;
    const run = await opts.passes.run({
      id: runId,
      startedAt,
      kind: spec.key,
      mode,
      actor: command.actor,
      ...input,
      hooks,
      rememberHooks: (next) => void (remembered = next),
      ...(effect.keep_seat_tokens
        ? { keep: (seat: string, value: string) => void minted.push({ seat, value }) }
        : {}),
    });
    if (!sameHooks(remembered, hooks))
      await append(spec.key, {
        type: 'webhooks',
        kind: spec.key,
        hooks: remembered.map(({ url, id }) => ({ url, id })),
        run_id: runId,
        at: new Date().toISOString(),
      });
    await append(spec.key, { type: 'pass_finished', run });
    const after = send(spec.key, {
      type: 'integration.pass.done',
      run_id: runId,
      mode,
      minted: minted.length,
    });
    const revision =
      after.some((e) => e.type === 'store_seat_tokens') && minted.length > 0
        ? await opts.source
            .storeSeatTokens(spec.key, minted, callerOf(command), revisionId)
            .catch((error: unknown) => {
              // The refusal names the run whose steps name the tokens minted at the vendor.
              if (!(error instanceof PassRefused)) throw error;
              throw new PassRefused({ ...error.refusal, extra: { ...error.refusal.extra, run_id: runId } });
            })
        : null;
    return { outcome: 'ran', run, revision_id: revision };
  }

  const serve = (verb: IntegrationVerb): Subscription =>
    serveCommand(
      bus,
      Commands.integration[verb],
      async (command) => {
        try {
          return await inLane(command.kind, verb, () => handle(verb, command));
        } catch (error) {
          if (!(error instanceof PassRefused)) throw error;
          return { outcome: 'refused', refusal: error.refusal } satisfies IntegrationReply;
        }
      },
      {
        invalid: (): IntegrationReply => ({
          outcome: 'refused',
          refusal: {
            status: 400,
            error: 'invalid_body',
            detail: 'The command is not {kind, actor}.',
            hint: '',
            extra: {},
          },
        }),
      },
    );
  const subscriptions = Object.values(IntegrationVerb).map(serve);

  return {
    states: () =>
      Object.fromEntries([...actors].map(([kind, actor]) => [kind, String(actor.getSnapshot().value)])),
    async stop() {
      unfollow();
      await Promise.all(subscriptions.map((s) => s.stop()));
      for (const actor of actors.values()) actor.stop();
    },
  };
}
