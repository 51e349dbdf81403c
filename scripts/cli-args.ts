/**
 * What every `svc <noun> <verb>` client of a running node parses alike: its own flags beside --url,
 * -c/--config and -h/--help, the help answer, and the node address and token it talks with.
 */
import type { ParseArgsConfig } from 'node:util';
import { nodeOrigin, unusableNodeText } from './cli-http.js';
import { parseFlags } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';

/** The help's block for the shared flags. */
export const nodeFlagsHelp = `Flags:
  --url URL        node address; default $SVC_URL, else api.host:api.port of --config, else http://127.0.0.1:8080
  -c, --config F   Tier A file to find the node's address in (default $SVC_CONFIG); only api.host and
                   api.port are read, so the node's own secrets need not be set
  --timeout SECS   how long to wait for the node's answer; default $SVC_TIMEOUT, else 10 for a read and 60
                   for a write (a backup waits 300)
  -h, --help       show this help
`;

type Options = NonNullable<ParseArgsConfig['options']>;

const nodeFlags = {
  url: { type: 'string' },
  timeout: { type: 'string' },
  config: { type: 'string', short: 'c' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/**
 * Parses strictly (an unknown flag is refused naming the flags the verb takes, from `takes`, else the
 * command's): the shared flags, `own`, and positionals.
 */
export function parseNodeArgs<const T extends Options>(
  args: string[],
  own: T,
  command: string,
  takes?: Readonly<Record<string, readonly string[]>>,
) {
  return parseFlags(
    { args, allowPositionals: true, strict: true, options: { ...nodeFlags, ...own } },
    { command, ...(takes ? { takes } : {}), shared: Object.keys(nodeFlags) },
  );
}

/**
 * With --help or without a verb, writes `help` and answers the exit code (0 asked for, 2 no verb);
 * otherwise null, and the verb runs.
 */
export function helpExit(
  help: string,
  asked: boolean | undefined,
  verb: string | undefined,
  out: Out,
  err: Out,
): number | null {
  if (!asked && verb !== undefined) return null;
  // Asked for, it is the answer; shown because the verb is missing, it is a usage error's message.
  (asked ? out : err).write(help);
  return asked ? 0 : 2;
}

/** What a verb runs with: the node, the token for it, and where answers and notes go. */
export interface NodeContext<O = Out> {
  readonly url: string;
  readonly token: string | undefined;
  /** `--timeout` / `$SVC_TIMEOUT` in ms; undefined: each request's own default (cli-http.ts). */
  readonly timeoutMs: number | undefined;
  readonly out: O;
  readonly err: O;
}

/** The node from --url / --config, and the token from $SVC_TOKEN (never a flag: flags land in shell history). */
export async function nodeContext<O>(
  values: {
    readonly url?: string | undefined;
    readonly config?: string | undefined;
    readonly timeout?: string | undefined;
  },
  env: NodeJS.ProcessEnv,
  out: O,
  err: O,
): Promise<NodeContext<O>> {
  const timeoutMs = patience(values.timeout, env['SVC_TIMEOUT']);
  const url = await nodeUrl(values.url, values.config, env);
  // A bad address is a bad flag value (as a non-number --limit), refused before anything is sent.
  if (nodeOrigin(url) === null) throw new UsageError(unusableNodeText);
  return { url, token: operatorToken(env['SVC_TOKEN']), timeoutMs, out, err };
}

/**
 * `$SVC_TOKEN` as the node compares a bearer token: trimmed, so a token file's line break (`$(cat t.txt)`
 * keeps a CRLF file's `\r`) is no part of it. One a header cannot carry is refused here, never echoed: sent,
 * it would read as an unreachable node, or its line break would start another header.
 */
function operatorToken(raw: string | undefined): string | undefined {
  const token = raw?.trim();
  if (!token) return undefined;
  // What an HTTP header value may hold (as node:http checks it): tab, visible ASCII and space, Latin-1.
  if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(token))
    throw new UsageError(
      'SVC_TOKEN holds a character no HTTP header can carry (a line break, a control character, or one beyond Latin-1): set it to the token alone',
    );
  return token;
}

/** `--timeout` (else `$SVC_TIMEOUT`) in ms: a positive number of seconds, at most a day. */
function patience(flag: string | undefined, env: string | undefined): number | undefined {
  const [given, name] = flag !== undefined ? [flag, '--timeout'] : [env || undefined, 'SVC_TIMEOUT'];
  if (given === undefined) return undefined;
  const seconds = /^\d+(\.\d+)?$/.test(given.trim()) ? Number(given) : NaN;
  if (!(seconds > 0 && seconds <= 86_400))
    throw new UsageError(
      `${name} is a number of seconds above 0 (at most 86400), such as 30; not ${JSON.stringify(given.slice(0, 40))}`,
    );
  return Math.round(seconds * 1000);
}

/** The node a CLI verb talks to: --url, $SVC_URL, the Tier A file's api address, else the default. */
async function nodeUrl(
  flag: string | undefined,
  configFile: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const explicit = flag ?? env['SVC_URL'];
  if (explicit) return explicit.replace(/\/+$/, '');
  const file = configFile ?? env['SVC_CONFIG'];
  if (file) {
    // Loaded only when a file names the node (the YAML parser is part of a client command's start-up).
    const { readApiAddress } = await import('./tier-a-file.js');
    const api = readApiAddress(file, env);
    // A file that was named but cannot say where the node is: the default address could be another node.
    if (!api.ok)
      throw new UsageError(
        `the node's address cannot be read from ${file} (${api.problem}): fix it, or pass --url`,
      );
    if (api.port === 0) throw new UsageError(`${file} binds no API listener (api.port: 0): pass --url`);
    const host = api.host === '0.0.0.0' || api.host === '::' ? '127.0.0.1' : api.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${api.port}`;
  }
  return 'http://127.0.0.1:8080';
}

/**
 * Refuses a flag the verb does not take (`takes`: each verb's own flags, beside --url, --config and --help):
 * ignored, `svc events tail --limit 3` would look as if it stopped after three, `svc work show X --status done`
 * as if it moved the item. A verb missing from `takes` is left to the command's own unknown-verb refusal.
 */
export function refuseOtherVerbsFlags(
  command: string,
  verb: string,
  values: Readonly<Record<string, unknown>>,
  takes: Readonly<Record<string, readonly string[]>>,
): void {
  const own = Object.hasOwn(takes, verb) ? takes[verb] : undefined;
  if (own === undefined) return;
  for (const [flag, value] of Object.entries(values)) {
    if (value === undefined || flag in nodeFlags || own.includes(flag)) continue;
    const owners = Object.keys(takes).filter((other) => takes[other]!.includes(flag));
    throw new UsageError(
      owners.length > 0
        ? `--${flag} belongs to svc ${command} ${owners.join(', ')}, not ${verb}`
        : `svc ${command} ${verb} takes no --${flag}`,
    );
  }
}
