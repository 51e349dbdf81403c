/** `svc replay`: a stream's messages as JSON lines, for audit. */
import type { Bus } from '../bus/index.js';
import { parseFlags } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { intFlag } from './cli-flags.js';
import { parseInstant } from '../schema/index.js';

const replayHelp = `Usage: svc replay [--config FILE] --stream NAME [--from-seq N | --since ISO] [--subject S] [--verify]

Prints the stream's messages as JSON lines {seq, subject, time, headers, data} on stdout, using the
bus engine the Tier A file names (on the memory engine, stop the node first: its store is single-process).

Flags:
  -c, --config FILE   Tier A bootstrap file (YAML); default: $SVC_CONFIG
  --stream NAME       stream to read (e.g. SVC_EVENTS, SVC_CONFIG)
  --from-seq N        start at sequence N (inclusive)
  --since ISO         start at the first message stored at or after this instant (RFC 3339, such as
                      2026-05-01T00:00:00Z)
  --subject S         only messages whose subject matches S (wildcards * and >)
  --verify            check that sequences strictly increase and report the count and any gaps
  -h, --help          show this help

Exit codes: 0 done; 1 the configuration is refused, the stream cannot be read, or --verify found gaps;
2 bad flags.
`;

export async function runReplay(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values } = parseFlags(
    {
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
    },
    { command: 'replay' },
  );
  if (values.help) {
    out.write(replayHelp);
    return 0;
  }
  if (!values.stream) throw new UsageError('--stream NAME is required');
  if (values['from-seq'] !== undefined && values.since !== undefined) {
    throw new UsageError('--from-seq and --since exclude each other');
  }
  // Digits only, as every other count flag (`Number` would take `0x10`, `1e2` and ` 5`).
  const seqText = intFlag('--from-seq', values['from-seq'], {
    fallback: 1,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
  });
  const fromSeq = seqText === undefined ? undefined : Number(seqText);
  // An instant as the node writes them (RFC 3339); `Date` would also take `1`, `2026` or `June 5`.
  const instant = values.since === undefined ? undefined : parseInstant(values.since);
  if (instant === null)
    throw new UsageError(
      `--since must be an RFC 3339 timestamp such as 2026-05-01T00:00:00Z (got ${JSON.stringify(values.since)})`,
    );
  const since = instant === undefined ? undefined : new Date(instant.ms);
  // Loaded once the flags hold: the help and a usage error need no bus, logger or Tier A schema.
  const [{ assertName, assertSubject, openBus }, { createLogger }, { replayStream }, { loadConfigFile }] =
    await Promise.all([
      import('../bus/index.js'),
      import('./logger.js'),
      import('./replay.js'),
      import('./tier-a-file.js'),
    ]);
  // A name or filter the bus cannot take is a bad flag, judged before any store is opened.
  flagHolds('--stream', () => assertName('stream', values.stream!));
  if (values.subject !== undefined) flagHolds('--subject', () => assertSubject(values.subject!, true));
  const config = loadConfigFile(values.config, env, err, { offline: true });
  if (!config) return 1;
  const queue = config.providers.queue;
  const bus: Bus = await openBus({
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    replicas: queue.replicas,
    storeDir: config.stream.store_dir,
    // An audit reads a store; a mistyped path must not leave an empty one behind.
    existingStore: true,
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

function flagHolds(flag: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    throw new UsageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
