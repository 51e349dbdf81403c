#!/usr/bin/env node
/**
 * The `svc` command line. Each command parses its own flags and prints its own help; a bad
 * invocation exits 2, a refused configuration exits 1 with every problem listed.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openBus, type Bus } from '../bus/index.js';
import { companyJsonSchema, formatProblems, type TierA } from '../schema/index.js';
import { loadTierA } from './tier-a-file.js';
import { BackupUsageError, runBackup, runRestore } from './backup-cli.js';
import { ConfigUsageError, runConfig } from './config-cli.js';
import { EventsUsageError, runEvents } from './events-cli.js';
import { FleetUsageError, runFleet } from './fleet-cli.js';
import { createLogger } from './logger.js';
import { completionHelp, completionScript } from './completion.js';
import { ProjectionsUsageError, runProjections } from './projections-cli.js';
import { replayStream } from './replay.js';
import { runKeygen, runSecrets, SecretsUsageError } from './secrets-cli.js';
import { seedCompany } from './seed-company.js';
import { whyNotListening } from './listen-why.js';
import { GatewayListenError } from '../http/index.js';
import { serve } from './serve.js';
import { packageVersion } from './version.js';

const mainHelp = `svc — runs one company of AI agents and humans

Usage: svc <command> [flags]

Commands:
  serve     run a node: gateway, probes and the bus engine named by the Tier A file
  replay    print a stream's messages as JSON lines (audit), optionally verifying sequences
  config    read and change the company document on a running node (svc config --help)
  secrets   list, put, reveal, remove and rekey stored secrets on a running node (svc secrets --help)
  keygen    print a fresh base64 32-byte key for secrets.keys
  events    list, trace and tail the event history of a running node (svc events --help)
  fleet     the nodes of a fleet, the broker's membership, removing a departed node (svc fleet --help)
  backup    back up a running node's bus estate into a directory; 'backup list' shows them
  restore   load a backup into a fresh store, the node stopped (svc restore --help)
  projections  list the read models' projections and checkpoints; rebuild one or all by replay (svc projections --help)
  completion   print a shell completion script: svc completion bash|zsh

Flags:
  -h, --help      show help (also: svc <command> --help)
  -v, --version   print the version

Environment:
  SVC_TOKEN       operator token the client commands (config, secrets, events, fleet, backup) send;
                  one of the node's api.auth.tokens
  SVC_URL         node address the client commands talk to (default: api.host:api.port of --config,
                  else http://127.0.0.1:8080)
  SVC_CONFIG      Tier A file used when --config is not given
  SVC_NODE_ID     node id when the file sets no node.id (default node-0)
  SVC_LOG_FORMAT  json or pretty (default: pretty at a terminal, json otherwise)
  SVC_LOG_LEVEL   trace, debug, info, warn, error, fatal or silent (overrides Tier A debug)
`;

const serveHelp = `Usage: svc serve [--config FILE] [--company FILE]

Runs one node until SIGTERM or SIGINT, then drains: /ready answers 503, writes and webhooks
answer 503 draining, the public listener closes, then api.port; exit code 0.

Flags:
  -c, --config FILE   Tier A bootstrap file (YAML); default: $SVC_CONFIG
      --company FILE  a company document (YAML or JSON) to activate when nothing is active anywhere in
                      the fleet (a first start); ignored once any revision is active
  -h, --help          show this help

Exit codes: 0 after a drain; 1 when the configuration is refused or the node cannot start; 2 on bad flags.
`;

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

/** The commands with a help of their own: a usage error points at it. */
const commands = new Set([
  'serve',
  'replay',
  'config',
  'secrets',
  'keygen',
  'events',
  'fleet',
  'backup',
  'restore',
  'projections',
  'completion',
]);

class UsageError extends Error {
  override name = 'UsageError';
}

type Out = { write(text: string): unknown };

/** Runs the CLI; resolves with the exit code (serve resolves only after its drain). */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: Out = process.stdout,
  err: Out = process.stderr,
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        out.write(mainHelp);
        return command === undefined ? 2 : 0;
      case '-v':
      case '--version':
      case 'version':
        out.write(`${packageVersion()}\n`);
        return 0;
      case 'serve':
        return await runServe(rest, env, out, err);
      case 'replay':
        return await runReplay(rest, env, out, err);
      case 'config':
        return await runConfig(rest, env, out, err, companyJsonSchema);
      case 'secrets':
        return await runSecrets(rest, env, out, err);
      case 'keygen':
        return runKeygen(rest, out);
      case 'events':
        return await runEvents(rest, env, out, err);
      case 'fleet':
        return await runFleet(rest, env, out, err);
      case 'backup':
        return await runBackup(rest, env, out, err);
      case 'restore':
        return await runRestore(rest, env, out, err);
      case 'projections':
        return await runProjections(
          rest,
          env,
          out,
          err,
          (file) => loadConfig(file, env, err),
          (config) =>
            createLogger({ debug: config.debug, node: config.node.id, destination: process.stderr, env }),
        );
      case 'completion': {
        if (rest[0] === '-h' || rest[0] === '--help') {
          out.write(completionHelp);
          return 0;
        }
        const script = completionScript(rest[0]);
        if (script === null) throw new UsageError('completion needs a shell: bash or zsh');
        out.write(script);
        return 0;
      }
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigUsageError ||
      error instanceof SecretsUsageError ||
      error instanceof EventsUsageError ||
      error instanceof FleetUsageError ||
      error instanceof BackupUsageError ||
      error instanceof ProjectionsUsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      const help = command !== undefined && commands.has(command) ? `svc ${command} --help` : 'svc --help';
      err.write(`svc: ${error.message}\nRun '${help}' for usage.\n`);
      return 2;
    }
    err.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv, err: Out): TierA | null {
  const path = file ?? env['SVC_CONFIG'];
  if (!path) throw new UsageError('no configuration: pass --config FILE or set SVC_CONFIG');
  const result = loadTierA(path, { env, cwd: process.cwd() });
  if (result.ok) return result.config;
  err.write(`svc: configuration ${path} refused:\n${formatProblems(result.problems)}\n`);
  return null;
}

/** The `--company` file's text, read before the node starts so a wrong path fails at once. */
function readCompanyFile(file: string, err: Out): { file: string; text: string } | false {
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    err.write(`svc: --company ${file}: cannot read it (${reason})\n`);
    return false;
  }
}

async function runServe(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      company: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    out.write(serveHelp);
    return 0;
  }
  const config = loadConfig(values.config, env, err);
  if (!config) return 1;
  const company = values.company === undefined ? null : readCompanyFile(values.company, err);
  if (company === false) return 1;
  const logger = createLogger({ debug: config.debug, node: config.node.id });
  // Signals are caught from the start: one that arrives while the node boots drains it once it is up.
  let signalled: NodeJS.Signals | null = null;
  let onSignal: (() => void) | null = null;
  const stop = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = signal;
    logger.info({ signal }, 'termination signal');
    onSignal?.();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  watchNpmParent(env, () => {
    logger.warn({ event: 'parent_exited' }, 'the npm process that started this node is gone: draining');
    stop('SIGTERM');
  });
  let running: Awaited<ReturnType<typeof serve>>;
  try {
    running = await serve(config, { logger, version: packageVersion() });
  } catch (error) {
    if (!(error instanceof GatewayListenError)) throw error;
    const why = await whyNotListening(error.host, error.port);
    logger.error(
      { event: 'listen_failed', host: error.host, port: error.port, reason: why },
      'cannot listen',
    );
    logger.flush();
    err.write(`svc serve: cannot listen on ${error.host}:${error.port}: ${why}\n`);
    return 1;
  }
  if (company) {
    await seedCompany({
      bus: running.bus,
      file: company.file,
      text: company.text,
      nodeId: config.node.id,
      configured: running.configuration.view.state.active !== null,
      logger,
    }).catch((error: unknown) => logger.error({ err: error }, 'the --company file could not be applied'));
  }
  await new Promise<void>((resolve) => {
    onSignal = () => {
      running.drain().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'drain failed');
        resolve();
      });
    };
    if (signalled) onSignal();
  });
  logger.flush();
  return 0;
}

/**
 * Under npm (`npx svc serve`, a start script without `exec`) a shell sits between npm and the node;
 * npm forwards SIGTERM to that shell, which dies without passing it on. The node notices it was
 * re-parented and drains as if signalled. Outside npm a vanished parent is normal (nohup, `&`).
 */
function watchNpmParent(env: NodeJS.ProcessEnv, onGone: () => void): void {
  if (env['npm_command'] === undefined && env['npm_lifecycle_event'] === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, 250);
  timer.unref();
}

async function runReplay(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
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
  const config = loadConfig(values.config, env, err);
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

// Run when executed directly (bin or node), not when imported by tests.
const invoked = process.argv[1] ?? '';
if (invoked.endsWith('/svc.js') || invoked.endsWith('/svc') || invoked.endsWith('/svc.ts')) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      // Exit once stdout has drained: a drained node leaves nothing to wait for, and piped output is kept.
      process.stdout.write('', () => process.exit(code));
    },
    (error: unknown) => {
      process.stderr.write(`svc: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
