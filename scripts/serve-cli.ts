/**
 * `svc serve`: runs one node until a signal, then drains it. Only light modules load before the signal
 * handlers are in place; the schema, the logger and the node load after (see `runServe`).
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { listenProblem, whyNotListening } from './listen-why.js';
import type { RunningNode } from './serve.js';
import type { TierA } from '../schema/index.js';
import { packageVersion } from './version.js';
import { parseFlags } from './cli-suggest.js';
import type { Out } from './cli-usage.js';
import { readFailure } from './read-failure.js';

const serveHelp = `Usage: svc serve [--config FILE] [--company FILE]

Runs one node until SIGTERM or SIGINT, then drains: /ready answers 503, writes and webhooks
answer 503 draining, running turns get node.turn_grace_seconds to finish, the public listener
closes, then api.port once the turns have settled; exit code 0.

Flags:
  -c, --config FILE   Tier A bootstrap file (YAML); default: $SVC_CONFIG
      --company FILE  a company document (YAML or JSON) to activate when nothing is active anywhere in
                      the fleet (a first start); ignored once any revision is active. A file that
                      cannot be read or parsed stops the start (exit 1); one the writer refuses is
                      logged and the node serves unconfigured
  -h, --help          show this help

Exit codes: 0 after a drain; 1 when the configuration is refused, the node cannot start or its drain left
steps unfinished (each logged drain_step_unfinished); 2 on bad flags.
`;

/**
 * The `--company` file's text, read and parsed before the node starts so a wrong path or a broken document
 * fails at once. Whether its content is valid is the config writer's to say (it may name secrets put later).
 */
async function readCompanyFile(file: string, err: Out): Promise<{ file: string; text: string } | false> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    err.write(`svc: --company ${file}: cannot read it ${readFailure(error)}\n`);
    return false;
  }
  const { formatProblems, parseCompanyYaml } = await import('../schema/index.js');
  const parsed = parseCompanyYaml(text);
  if (!parsed.ok) {
    err.write(`svc: --company ${file}: not a readable document:\n${formatProblems(parsed.problems)}\n`);
    return false;
  }
  return { file, text };
}

export async function runServe(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  // Signals are caught from the start, before any file is read or the node's modules load (a signal before
  // then would kill the process): one that arrives while the node boots drains it once it is up.
  let signalled = null as NodeJS.Signals | null;
  let logger: Logger | null = null;
  let onSignal: (() => void) | null = null;
  const stop = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = signal;
    logger?.info({ signal }, 'termination signal');
    onSignal?.();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const { values } = parseFlags(
    {
      args,
      options: {
        config: { type: 'string', short: 'c' },
        company: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    },
    { command: 'serve' },
  );
  if (values.help) {
    out.write(serveHelp);
    return 0;
  }
  const [{ loadConfigFile }, { createLogger }, { withoutUserinfo }] = await Promise.all([
    import('./tier-a-file.js'),
    import('./logger.js'),
    import('../schema/index.js'),
  ]);
  // A refused start is said on stderr and, for operators who read the node's JSON log rather than its
  // terminal, as one fatal line with the same words (never a value: Tier A problems name `${VAR}`s).
  const said: string[] = [];
  const errTee: Out = { write: (text: string) => (said.push(text), err.write(text)) };
  const refuse = (log: Logger, message?: string, fields: Record<string, unknown> = {}): 1 => {
    if (message !== undefined) errTee.write(`${message}\n`);
    log.fatal(
      { event: 'serve_refused', ...fields },
      said
        .join('')
        .trimEnd()
        .replace(/^svc( serve)?: /, ''),
    );
    log.flush();
    return 1;
  };
  const config = loadConfigFile(values.config, env, errTee);
  if (!config) return refuse(createLogger({ debug: false, node: null }));
  const log = createLogger({ debug: config.debug, node: config.node.id });
  logger = log;
  const company = values.company === undefined ? null : await readCompanyFile(values.company, errTee);
  if (company === false) return refuse(log);
  if (signalled) log.info({ signal: signalled }, 'termination signal');
  watchNpmParent(env, () => {
    log.warn({ event: 'parent_exited' }, 'the npm process that started this node is gone: draining');
    stop('SIGTERM');
  });
  // The node's modules load once the flags and files are known good: a refused start answers at once.
  const [{ serve }, { GatewayListenError }, { seedCompany }, { refusedIsolation }] = await Promise.all([
    import('./serve.js'),
    import('../http/index.js'),
    import('./seed-company.js'),
    import('./sandbox-wiring.js'),
  ]);
  // Told to isolate coding runs, a node that cannot never starts: it would launch them unisolated.
  const unisolated = await refusedIsolation(config);
  if (unisolated !== null)
    return refuse(log, `svc serve: sandbox.isolation is bubblewrap, but ${unisolated}`);
  // A port that cannot be bound is refused before the store is opened: nothing replayed, no presence
  // written, no seat taken by a node about to exit. The bind itself still answers a port taken since.
  for (const [port, key] of listenedPorts(config)) {
    const problem = await listenProblem(config.api.host, port, key);
    if (problem !== null) {
      return refuse(log, `svc serve: cannot listen on ${config.api.host}:${port}: ${problem}`, {
        host: config.api.host,
        port,
      });
    }
  }
  let running: RunningNode;
  try {
    running = await serve(config, { logger: log, version: packageVersion() });
  } catch (error) {
    if (!(error instanceof GatewayListenError)) {
      // The node's own refusals (a store directory it cannot make, a keyring that cannot open the active
      // revision) and anything else that stops the start. A URL's userinfo may be a credential.
      return refuse(log, `svc: ${withoutUserinfo(error instanceof Error ? error.message : String(error))}`);
    }
    // The public listener is the second one: its port comes from api.public.port (never equal to api.port).
    const key = error.port === config.api.public?.port ? 'api.public.port' : 'api.port';
    const why = await whyNotListening(error.host, error.port, key);
    return refuse(log, `svc serve: cannot listen on ${error.host}:${error.port}: ${why}`, {
      host: error.host,
      port: error.port,
    });
  }
  if (company) {
    await seedCompany({
      bus: running.bus,
      file: company.file,
      text: company.text,
      nodeId: config.node.id,
      configured: running.configuration.view.state.active !== null,
      logger: log,
    }).catch((error: unknown) => log.error({ err: error }, 'the --company file could not be applied'));
  } else if (running.configuration.view.state.active === null) {
    // The first thing an operator reads after starting a bare node: why /ready answers 503, and what to do.
    log.info(
      { event: 'unconfigured' },
      'no company document is active: /ready answers 503 until one is (svc config put FILE --summary S, or --company FILE on a first start)',
    );
  }
  const drained = await new Promise<boolean>((resolve) => {
    onSignal = () => {
      running.drain().then(
        () => resolve(true),
        (error: unknown) => {
          log.error({ err: error, event: 'drain_failed' }, 'drain failed');
          resolve(false);
        },
      );
    };
    if (signalled) onSignal();
  });
  log.flush();
  return drained ? 0 : 1;
}

/** The ports the gateway will bind, with the key that sets each: api.port, and api.public.port on ingress. */
function listenedPorts(config: TierA): Array<[number, string]> {
  if (config.api.port === 0) return [];
  const pub = config.api.public?.port ?? 0;
  const ingress = config.node.roles.includes('ingress');
  return [
    [config.api.port, 'api.port'],
    ...(pub > 0 && ingress ? [[pub, 'api.public.port'] as [number, string]] : []),
  ];
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
