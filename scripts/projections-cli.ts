/**
 * `svc projections list|rebuild [NAME]`: the projections a node keeps, and their checkpoints in
 * `<stream.store_dir>/projections.sqlite`. `rebuild` replays a projection from zero through the runner (the
 * same code path as a node's boot) on the engine the Tier A file names, discards the checkpoint it held and
 * writes a fresh one. A node resumes from its checkpoints at boot, so run it with the node stopped (on the
 * memory engine the store is single-process anyway), then start the node.
 */
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { activePointerKey } from '../actors/index.js';
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
import { UsageError, type Out } from './cli-usage.js';

export const projectionsHelp = `Usage: svc projections list|rebuild [NAME] [--config FILE]

Every read model a node answers from is a projection kept by one runner: replayed from its stream at
boot (or resumed from its checkpoint, when its version matches), then following the live tail.

Verbs (on the store the Tier A file names; stop the node first):
  list            each projection's name, version and source, and the checkpoint held for it
                  (its version and sequence; "stale" when another version took it)
  rebuild [NAME]  replay NAME (default: every projection) from zero, discard its checkpoint and write
                  a fresh one; prints one JSON line per projection (messages replayed, sequence reached).
                  \`work\` and \`pages\` are there when the Tier A file names a native tracker or knowledge
                  base; \`work\` starts from its newest snapshot after a trim, as a node's boot does

Flags:
  -c, --config FILE   Tier A bootstrap file (YAML); default: $SVC_CONFIG
  -h, --help          show this help

Exit codes: 0 done; 1 the configuration is refused or a projection failed; 2 bad flags or an unknown NAME.
`;

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

/** Every projection a node runs, in boot order; the native backends' when its Tier A names them. */
export function nodeProjections(
  bus: Bus,
  kv: { coord: Kv; secrets: Kv },
  logger: Logger,
  native: { readonly work: boolean; readonly pages: boolean } = { work: false, pages: false },
): Entry[] {
  const models = readModelProjections(new ReadModels());
  return [
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
    entry(bus, secretsProjection(kv.secrets), logger),
    entry(bus, eventsProjection, logger),
    ...models.all.map((projection) => entry(bus, projection, logger)),
    entry(bus, schedulesProjection(), logger),
    entry(bus, integrationsProjection, logger),
    ...(native.work ? [workEntry(bus, logger)] : []),
    ...(native.pages ? [entry(bus, pagesProjection(), logger)] : []),
  ];
}

export async function runProjections(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
  load: (file: string | undefined) => TierA | null,
  logger: (config: TierA) => Logger,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  const [verb, name, ...extra] = positionals;
  if (values.help || verb === 'help') {
    out.write(projectionsHelp);
    return 0;
  }
  if (verb !== 'list' && verb !== 'rebuild') {
    throw new UsageError(
      verb === undefined ? 'a verb is required: list or rebuild' : `unknown verb: ${verb}`,
    );
  }
  if (extra.length > 0 || (verb === 'list' && name !== undefined)) {
    throw new UsageError(`unexpected arguments: ${[...(verb === 'list' ? [name] : []), ...extra].join(' ')}`);
  }
  const config = load(values.config);
  if (!config) return 1;
  const log = logger(config);
  const queue = config.providers.queue;
  const bus = await openBus({
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    replicas: queue.replicas,
    storeDir: config.stream.store_dir,
    logger: log.child({ component: 'bus' }),
  });
  const checkpoints = config.stream.store_dir ? openCheckpoints(config.stream.store_dir) : undefined;
  try {
    const kv = await ensureCatalogue(bus);
    const all = nodeProjections(bus, kv, log, {
      work: config.tracker.backend === 'native',
      pages: config.knowledge.backend === 'native',
    });
    const chosen = name === undefined ? all : all.filter((p) => p.name === name);
    if (chosen.length === 0) {
      throw new UsageError(`no projection named ${name}: one of ${all.map((p) => p.name).join(', ')}`);
    }
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
