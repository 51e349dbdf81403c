/**
 * What `svc projections list|rebuild` does once its flags hold (scripts/projections-cli.ts): the node's
 * projections on the bus the Tier A file names, and their checkpoints.
 */
import type { Logger } from 'pino';
import { activePointerKey, describeProcess, runningProcess } from '../actors/index.js';
import { ensureCatalogue, openBus, Streams, Subjects, type Bus, type Kv } from '../bus/index.js';
import {
  configProjection,
  eventsProjection,
  followWork,
  integrationsProjection,
  openCheckpoints,
  pagesProjection,
  readModelProjections,
  ReadModels,
  runProjection,
  schedulesProjection,
  secretsProjection,
  workProjection,
  type AnyProjection,
  type CheckpointStore,
} from '../projections/index.js';
import type { TierA } from '../schema/index.js';
import { didYouMean } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';

/** One projection as the command sees it: its identity, and how to run it once. */
interface Entry {
  readonly name: string;
  readonly version: number;
  readonly source: string;
  readonly checkpointed: boolean;
  run(checkpoints: CheckpointStore | undefined): Promise<{ replayed: number; seq: number }>;
}

function entry<S>(bus: Bus, projection: AnyProjection<S>, logger: Logger): Entry {
  const isBucket = 'bucket' in projection;
  return {
    name: projection.name,
    version: projection.version,
    source: isBucket ? `bucket ${projection.bucket.name}` : `stream ${projection.stream}`,
    checkpointed: !isBucket && projection.checkpoint !== undefined,
    async run(checkpoints) {
      // Without its checkpoint the boot is a replay from zero, which saves a fresh one at its end.
      checkpoints?.remove(projection.name);
      const running = await runProjection({
        bus,
        projection,
        logger,
        ...(checkpoints ? { checkpoints } : {}),
      });
      await running.stop();
      return { replayed: running.boot.replayed, seq: running.seq() };
    },
  };
}

/**
 * The native tracker's projection, run as a node's boot runs it: after a trim it starts from the newest
 * snapshot reaching the log (ops/work-tracker.md "Retention"), and a log no snapshot reaches fails it.
 */
function workEntry(bus: Bus, logger: Logger): Entry {
  return {
    name: workProjection.name,
    version: workProjection.version,
    source: `stream ${workProjection.stream}`,
    checkpointed: false,
    async run() {
      const view = await followWork({ bus, logger });
      try {
        const unavailable = view.unavailable();
        if (unavailable !== null) throw new Error(unavailable);
        return { replayed: view.running.boot.replayed, seq: view.running.seq() };
      } finally {
        await view.stop();
      }
    },
  };
}

/** What a projection needs to run: the bus, the catalogue's buckets, a logger. */
interface Context {
  readonly bus: Bus;
  readonly kv: { readonly coord: Kv; readonly secrets: Kv };
  readonly logger: Logger;
}

/** A projection by name, opened on the store only once it is chosen: a NAME is judged before the store is. */
interface Planned {
  readonly name: string;
  open(ctx: Context): Entry;
}

const plain = <S>(projection: AnyProjection<S>): Planned => ({
  name: projection.name,
  open: (ctx) => entry(ctx.bus, projection, ctx.logger),
});

/** Every projection a node runs, in boot order; the native backends' when its Tier A names them. */
function nodeProjections(
  native: { readonly work: boolean; readonly pages: boolean } = { work: false, pages: false },
): Planned[] {
  const models = readModelProjections(new ReadModels());
  return [
    {
      // Its name is the projection's own (`configProjection` needs the bus to be made).
      name: 'config',
      open: ({ bus, kv, logger }) =>
        entry(
          bus,
          configProjection(
            {
              bus,
              coord: kv.coord,
              stream: Streams.Config,
              subjects: {
                revisionStored: Subjects.configRevisionStored,
                revisionActivated: Subjects.configRevisionActivated,
              },
              activeKey: activePointerKey,
              logger,
            },
            { activated: () => undefined, settled: () => undefined },
          ),
          logger,
        ),
    },
    { name: 'secrets', open: ({ bus, kv, logger }) => entry(bus, secretsProjection(kv.secrets), logger) },
    plain(eventsProjection),
    ...models.all.map((projection) => plain(projection)),
    plain(schedulesProjection()),
    plain(integrationsProjection),
    ...(native.work
      ? [{ name: workProjection.name, open: ({ bus, logger }: Context) => workEntry(bus, logger) }]
      : []),
    ...(native.pages ? [plain(pagesProjection())] : []),
  ];
}

/** Lists or rebuilds `name` (default: every projection) on the store `config` names. */
export async function runProjectionVerb(
  verb: 'list' | 'rebuild',
  name: string | undefined,
  config: TierA,
  log: Logger,
  out: Out,
  err: Out,
): Promise<number> {
  const all = nodeProjections({
    work: config.tracker.backend === 'native',
    pages: config.knowledge.backend === 'native',
  });
  const planned = name === undefined ? all : all.filter((p) => p.name === name);
  if (planned.length === 0) {
    const names = all.map((p) => p.name);
    throw new UsageError(
      `no projection named ${name}${didYouMean(name!, names)}: one of ${names.join(', ')}`,
    );
  }
  const queue = config.providers.queue;
  const bus = await openBus({
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    replicas: queue.replicas,
    storeDir: config.stream.store_dir,
    // A stopped node's store: a mistyped path must not leave an empty one (and fresh checkpoints) behind.
    existingStore: true,
    logger: log.child({ component: 'bus' }),
  });
  let checkpoints: CheckpointStore | undefined;
  try {
    const kv = await ensureCatalogue(bus);
    if (verb === 'rebuild') {
      // The memory store's lock and the embedded server's pid refuse a running node by themselves; on an
      // external server only its presence says so. A rebuild under it would be undone by its next save.
      const running = await runningProcess({ bus, coord: kv.coord, nodeId: config.node.id });
      if (running !== null) {
        err.write(
          `svc: node ${config.node.id} is running (${describeProcess(running)}): stop it before svc projections rebuild\n`,
        );
        return 1;
      }
    }
    checkpoints = config.stream.store_dir ? openCheckpoints(config.stream.store_dir) : undefined;
    const chosen = planned.map((p) => p.open({ bus, kv, logger: log }));
    if (verb === 'list') {
      for (const p of chosen) {
        const held = checkpoints?.load(p.name) ?? null;
        const checkpoint = held
          ? {
              version: held.version,
              seq: held.seq,
              saved_at: held.savedAt,
              stale: held.version !== p.version,
            }
          : null;
        out.write(`${JSON.stringify({ name: p.name, version: p.version, source: p.source, checkpoint })}\n`);
      }
      return 0;
    }
    let failed = 0;
    for (const p of chosen) {
      try {
        const done = await p.run(checkpoints);
        const checkpoint = p.checkpointed && checkpoints ? 'written' : 'none';
        out.write(`${JSON.stringify({ name: p.name, version: p.version, ...done, checkpoint })}\n`);
      } catch (error) {
        failed += 1;
        err.write(
          `svc: projection ${p.name} not rebuilt: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      }
    }
    return failed === 0 ? 0 : 1;
  } finally {
    checkpoints?.close();
    await bus.close();
  }
}
