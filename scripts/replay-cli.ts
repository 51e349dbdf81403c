/** `svc replay`: a stream's messages as JSON lines, for audit. */
import { parseArgs } from 'node:util';
import type { Bus } from '../bus/index.js';
import { UsageError, type Out } from './cli-usage.js';

const replayHelp = `Usage: svc replay [--config FILE] --stream NAME [--from-seq N | --since ISO] [--subject S] [--verify]

Prints the stream's messages as JSON lines {seq, subject, time, headers, data} on stdout, using the
bus engine the Tier A file names (on the memory engine, stop the node first: its store is single-process).

Flags:
  -c, --config FILE   Tier A bootstrap file (YAML); default: $SVC_CONFIG
  --stream NAME       stream to read (e.g. SVC_EVENTS, SVC_CONFIG)
  --from-seq N        start at sequence N (inclusive)
  --since ISO         start at the first message stored at or after this instant
  --subject S         only messages whose subject matches S (wildcards * and >)
  --verify            check that sequences strictly increase and report the count and any gaps
  -h, --help          show this help
`;

export async function runReplay(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      stream: { type: 'string' },
      'from-seq': { type: 'string' },
      since: { type: 'string' },
      subject: { type: 'string' },
      verify: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    out.write(replayHelp);
    return 0;
  }
  if (!values.stream) throw new UsageError('--stream NAME is required');
  if (values['from-seq'] !== undefined && values.since !== undefined) {
    throw new UsageError('--from-seq and --since exclude each other');
  }
  const fromSeq = values['from-seq'] === undefined ? undefined : Number(values['from-seq']);
  if (fromSeq !== undefined && (!Number.isSafeInteger(fromSeq) || fromSeq < 1)) {
    throw new UsageError(`--from-seq must be a positive integer, got ${values['from-seq']}`);
  }
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (since !== undefined && Number.isNaN(since.getTime())) {
    throw new UsageError(`--since must be an ISO 8601 instant, got ${values.since}`);
  }
  // Loaded once the flags hold: the help and a usage error need no bus, logger or Tier A schema.
  const [{ openBus }, { createLogger }, { replayStream }, { loadConfigFile }] = await Promise.all([
    import('../bus/index.js'),
    import('./logger.js'),
    import('./replay.js'),
    import('./tier-a-file.js'),
  ]);
  const config = loadConfigFile(values.config, env, err, { offline: true });
  if (!config) return 1;
  const queue = config.providers.queue;
  const bus: Bus = await openBus({
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    replicas: queue.replicas,
    storeDir: config.stream.store_dir,
    logger: createLogger({ debug: config.debug, node: config.node.id, destination: process.stderr }),
  });
  try {
    const result = await replayStream(
      bus,
      { stream: values.stream, fromSeq, since, subject: values.subject, verify: values.verify ?? false },
      process.stdout,
    );
    return values.verify && result.gaps.length > 0 ? 1 : 0;
  } finally {
    await bus.close();
  }
}
