#!/usr/bin/env node
/**
 * The `svc` command line. Each command parses its own flags and prints its own help; a bad
 * invocation exits 2, a refused configuration exits 1 with every problem listed. A command's module
 * is loaded only when it runs: a client command need not load the node it talks to.
 */
import { didYouMean } from './cli-suggest.js';
import { AnswerShapeError } from './cli-shape.js';
import { UsageError, named, type Out } from './cli-usage.js';
import { completionHelp, completionRefusal, completionScript } from './completion.js';
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
  work      list, show, create, comment on and move tracker items; your inbox (svc work --help)
  pages     list, show, search and create knowledge-base pages (svc pages --help)
  fleet     the nodes of a fleet, the broker's membership, removing a departed node (svc fleet --help)
  agents    the agent seats: list, show, activity; pause, resume, clear their questions (svc agents --help)
  backup    back up a running node's bus estate into a directory; 'backup list' shows them
  restore   load a backup into a fresh store, the node stopped (svc restore --help)
  projections  list the read models' projections and checkpoints; rebuild one or all by replay (svc projections --help)
  completion   print a shell completion script: svc completion bash|zsh

Flags:
  -h, --help      show help (also: svc <command> --help, or svc help <command>)
  -v, --version   print the version

Environment:
  SVC_TOKEN       operator token the client commands (config, secrets, events, work, pages, fleet,
                  agents, backup) send; one of the node's api.auth.tokens
  SVC_URL         node address the client commands talk to (default: api.host:api.port of --config,
                  else http://127.0.0.1:8080)
  SVC_TIMEOUT     seconds the client commands wait for the node's answer (default 10 for a read, 60 for
                  a write, 300 for a backup; --timeout SECS on one command)
  SVC_CONFIG      Tier A file used when --config is not given
  SVC_NODE_ID     node id when the file sets no node.id (default node-0)
  SVC_LOG_FORMAT  json or pretty (default: pretty at a terminal, json otherwise)
  SVC_LOG_LEVEL   trace, debug, info, warn, error, fatal or silent (overrides Tier A debug)
`;

/** The commands with a help of their own: a usage error points at it. */
const commands = new Set([
  'serve',
  'replay',
  'config',
  'secrets',
  'keygen',
  'events',
  'work',
  'pages',
  'fleet',
  'agents',
  'backup',
  'restore',
  'projections',
  'completion',
]);

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
        // `svc help work` is `svc work --help`; a word that names no command is not dropped silently.
        if (rest.length > 0) {
          const [topic, ...more] = rest;
          // `help` and `version` are svc's own words: the main help says them.
          const own = topic === 'help' || topic === 'version';
          if (!own && !commands.has(topic!)) throw new UsageError(unknownCommand(topic!));
          if (more.length > 0) throw new UsageError(`unexpected arguments: ${more.map(named).join(' ')}`);
          return await main(own ? ['--help'] : [topic!, '--help'], env, out, err);
        }
        // Shown because no command was given, the help is a usage error's message.
        (command === undefined ? err : out).write(mainHelp);
        return command === undefined ? 2 : 0;
      case '-v':
      case '--version':
      case 'version':
        // A word after it was meant for something else (`svc version serve`): say so rather than drop it.
        if (rest.length > 0) throw new UsageError(`${command} takes no argument: ${named(rest[0]!)}`);
        out.write(`${packageVersion()}\n`);
        return 0;
      case 'serve':
        return await (await import('./serve-cli.js')).runServe(rest, env, out, err);
      case 'replay':
        return await (await import('./replay-cli.js')).runReplay(rest, env, out, err);
      case 'config': {
        const schema = async (): Promise<unknown> => (await import('../schema/index.js')).companyJsonSchema();
        return await (await import('./config-cli.js')).runConfig(rest, env, out, err, schema);
      }
      case 'secrets':
        return await (await import('./secrets-cli.js')).runSecrets(rest, env, out, err);
      case 'keygen':
        return (await import('./secrets-cli.js')).runKeygen(rest, out);
      case 'events':
        return await (await import('./events-cli.js')).runEvents(rest, env, out, err);
      case 'work':
        return await (await import('./work-cli.js')).runWork(rest, env, out, err);
      case 'pages':
        return await (await import('./pages-cli.js')).runPages(rest, env, out, err);
      case 'fleet':
        return await (await import('./fleet-cli.js')).runFleet(rest, env, out, err);
      case 'agents':
        return await (await import('./agents-cli.js')).runAgents(rest, env, out, err);
      case 'backup':
        return await (await import('./backup-cli.js')).runBackup(rest, env, out, err);
      case 'restore':
        return await (await import('./backup-cli.js')).runRestore(rest, env, out, err);
      case 'projections':
        return await (await import('./projections-cli.js')).runProjections(rest, env, out, err);
      case 'completion': {
        if (rest.some((word) => word === '-h' || word === '--help')) {
          out.write(completionHelp);
          return 0;
        }
        const script = completionScript(rest[0]);
        if (script === null) throw new UsageError(completionRefusal(rest[0]));
        // A second word was meant for something (`svc completion bash zsh`): said rather than dropped.
        if (rest.length > 1)
          throw new UsageError(
            `completion takes one shell: unexpected arguments: ${rest.slice(1).map(named).join(' ')}`,
          );
        out.write(script);
        return 0;
      }
      default:
        throw new UsageError(unknownCommand(command));
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      const help = command !== undefined && commands.has(command) ? `svc ${command} --help` : 'svc --help';
      const message =
        error instanceof UsageError ? error.message : parseArgsMessage((error as Error).message);
      // A message that names its command already (`svc config put needs FILE`) is not prefixed twice.
      const said = message.startsWith('svc ') ? message : `svc: ${message}`;
      err.write(`${said}\nRun '${help}' for usage.\n`);
      return 2;
    }
    // An answer that is not the node's (or not of this release's shape), wherever a command read it.
    if (error instanceof AnswerShapeError) {
      err.write(`svc ${command}: ${error.message}\n`);
      return 1;
    }
    err.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** The flags `svc` itself takes; a near miss of one is named, any other flag belongs after a command. */
const globalFlags = ['--help', '--version'];

const unknownCommand = (word: string): string => {
  if (!word.startsWith('-')) return `unknown command: ${word}${didYouMean(word, commands)}`;
  const flag = named(word);
  const near = didYouMean(flag, globalFlags);
  return `unknown flag ${flag}${near === '' ? ' (flags follow the command)' : near}`;
};

/**
 * node:util's parseArgs refusal in one line and the CLI's words: its own can run to three lines (a value
 * that starts with a dash) or leave a quote open (an unknown option). Another wording passes as it is.
 */
function parseArgsMessage(message: string): string {
  // `Option '-c, --config <value>' argument missing` names the long flag too: that one is said.
  const flag = /^(?:Option|Unknown option) '(?:-\w, )?(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (flag !== undefined) {
    if (message.startsWith('Unknown option'))
      return `unknown flag ${flag} (an argument that starts with a dash goes after --)`;
    if (/argument missing/.test(message)) return `${flag} needs a value`;
    if (/ambiguous/.test(message))
      return `${flag} needs a value (one that starts with a dash is written ${flag}=-X)`;
    if (/does not take an argument/.test(message)) return `${flag} takes no value`;
  }
  const positional = /^Unexpected argument '([^']*)'/.exec(message)?.[1];
  if (positional !== undefined) return `unexpected arguments: ${positional}`;
  return message.split('\n')[0]!;
}

/**
 * A reader that went away (`svc events tail | head -1`) wants no more output: a client command stops as a
 * filter does, exit 0 and no stack trace. A command that changes this machine's state (`serve`, `restore`,
 * `projections rebuild`) is not cut midway by it: its output is dropped and it finishes with its own exit code.
 */
const finishesRegardless = new Set(['serve', 'restore', 'projections']);

function quietOnClosedReader(command: string | undefined): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      if (!finishesRegardless.has(command ?? '')) process.exit(0);
    });
  }
}

// Run when executed directly (bin or node), not when imported by tests.
const invoked = process.argv[1] ?? '';
if (invoked.endsWith('/svc.js') || invoked.endsWith('/svc') || invoked.endsWith('/svc.ts')) {
  quietOnClosedReader(process.argv[2]);
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
