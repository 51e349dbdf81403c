/**
 * `svc secrets <verb>`: the secret store from a terminal, against a running node, and `svc keygen`.
 * The token comes from SVC_TOKEN and a value from a file or stdin — never from an argument, which
 * would land in shell history and process listings; typed at a terminal, it is read with echo off.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { helpExit, nodeContext, nodeFlagsHelp, parseNodeArgs, type NodeContext } from './cli-args.js';
import { readHiddenLine } from './cli-hidden-input.js';
import { requestNode } from './cli-http.js';
import { describeRefusal } from './cli-refusal.js';
import { nodeJson } from './cli-shape.js';
import { didYouMean, unknownVerb } from './cli-suggest.js';
import { UsageError, named } from './cli-usage.js';
import { nonEmptyFlag, shapeFlag } from './cli-flags.js';
import { SECRET_SOURCE } from '../schema/index.js';

const secretsVerbs = ['list', 'put', 'reveal', 'rm', 'rekey'];

export const secretsHelp = `Usage: svc secrets <verb> [flags]

Verbs (against a running node; token from $SVC_TOKEN):
  list                              names with key_id, updated_at, updated_by, source (never values)
  put      NAME [FILE|-] [--source S]
                                    store the exact bytes of FILE, or of stdin when FILE is - or absent
                                    (a trailing newline is kept: use printf, or a file); at a
                                    terminal, prompts and reads one line with echo off; --source
                                    names the writer (default cli): lower-case letters, digits,
                                    . _ : - (at most 64), starting with a letter
  reveal   NAME                     write the value to stdout (exact bytes, no newline added)
  rm       NAME                     remove; prints {"removed": true|false}
  rekey    [--key-id K]             re-seal records not under the active key; prints the names moved

${nodeFlagsHelp}
Exit codes: 0 done; 1 refused (the answer's error code is printed); 2 bad flags.
`;

export const keygenHelp = `Usage: svc keygen

Prints a fresh key for secrets.keys: base64 of 32 random bytes. Put it in the Tier A file as
{id: <new id>, material: "<key>"} (or as a \${VAR} reference), then set secrets.active_key_id.
`;

type Out = { write(chunk: string | Uint8Array): unknown };

/** Where a put's value comes from when no FILE is named: stdin's bytes, or null when the user gave up. */
type ValueSource = (name: string) => Buffer | null | Promise<Buffer | null>;

export function runKeygen(args: string[], out: Out): number {
  if (args.includes('-h') || args.includes('--help')) {
    out.write(keygenHelp);
    return 0;
  }
  if (args.length > 0) {
    const first = args[0]!;
    throw new UsageError(
      first.startsWith('-')
        ? `unknown flag ${named(first)}${didYouMean(named(first), ['--help'])}`
        : `unexpected arguments: ${args.join(' ')}`,
    );
  }
  out.write(`${randomBytes(32).toString('base64')}\n`);
  return 0;
}

export async function runSecrets(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
  stdin: ValueSource = stdinValue(err),
): Promise<number> {
  const { values, positionals } = parseNodeArgs(
    args,
    {
      source: { type: 'string' },
      'key-id': { type: 'string' },
    },
    'secrets',
  );
  const [verb, name, file, ...extra] = positionals;
  const exit = helpExit(secretsHelp, values.help, verb, out, err);
  if (exit !== null) return exit;
  if (!secretsVerbs.includes(verb!)) throw unknownVerb('secrets', verb!, secretsVerbs);
  // A flag of another verb is refused, not ignored: `list --key-id k` must not look like it filtered.
  for (const [flag, owner] of [
    ['source', 'put'],
    ['key-id', 'rekey'],
  ] as const)
    if (values[flag] !== undefined && verb !== owner)
      throw new UsageError(`--${flag} belongs to svc secrets ${owner}, not ${verb}`);
  const takes = verb === 'put' ? 2 : verb === 'list' || verb === 'rekey' ? 0 : 1;
  const given = [name, file, ...extra].filter((p) => p !== undefined);
  if (given.length > takes) {
    // `put NAME my secret words`: the surplus of a put is most likely a value typed unquoted; never echo it.
    throw new UsageError(
      verb === 'put'
        ? `svc secrets put takes NAME and one FILE; ${given.length - takes} more argument(s) given (not shown: a value is never taken from the command line, pipe it on stdin)`
        : `unexpected arguments: ${given.slice(takes).join(' ')}`,
    );
  }
  // The route's grammar for `?source=`, in its words; empty, it would be dropped and stored as `cli`.
  shapeFlag(
    '--source',
    values.source,
    (source) => SECRET_SOURCE.test(source),
    'lower-case letters, digits, . _ : - (at most 64), starting with a letter',
  );
  // Empty, it would be dropped: a rekey under whatever key is active, not the one named.
  nonEmptyFlag('--key-id', values['key-id'], 'a key id of secrets.keys');
  const ctx = await nodeContext(values, env, out, err);
  const nameFits = name !== undefined && isSecretNameText(name);
  const needName = (): string => {
    if (name === undefined) throw new UsageError(`svc secrets ${verb} needs NAME`);
    if (!nameFits) {
      // `put sk-live-…` (the value where NAME goes) is a likely slip: a put's bad NAME is not echoed.
      const shown = verb === 'put' ? 'the NAME argument' : name;
      throw new UsageError(
        `${shown} is not a secret name (letters, digits, _; not starting with a digit; at most 128)`,
      );
    }
    return encodeURIComponent(name);
  };
  switch (verb) {
    case 'list':
      return call(ctx, 'GET', '/secrets');
    case 'put': {
      const path = `/secrets/${needName()}`;
      const value = await readValue(file ?? '-', name!, stdin);
      if (value === null) {
        err.write('svc secrets put: interrupted; nothing was stored\n');
        return 130;
      }
      const query = `?source=${encodeURIComponent(values.source ?? 'cli')}`;
      return call(ctx, 'PUT', `${path}${query}`, value, { 'content-type': 'application/octet-stream' });
    }
    case 'reveal':
      return call(ctx, 'GET', `/secrets/${needName()}?reveal=true`, undefined, {}, true);
    case 'rm':
      return call(ctx, 'DELETE', `/secrets/${needName()}`);
    case 'rekey':
      return call(
        ctx,
        'POST',
        `/secrets/rekey${values['key-id'] !== undefined ? `?key_id=${encodeURIComponent(values['key-id'])}` : ''}`,
      );
    default:
      throw unknownVerb('secrets', verb!, secretsVerbs);
  }
}

/**
 * The secret-name grammar of schema/secrets.ts (`isSecretName`), restated so a client command loads no
 * schema (zod and every document schema were half of its start-up); secrets-cli.unit.test.ts holds the
 * two equal.
 */
export const isSecretNameText = (name: string): boolean => /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name);

/**
 * Piped, the whole of stdin is the value (exact bytes). At a terminal the value is one line typed with echo
 * off, after a prompt on stderr: read as a pipe is, it showed on the screen as typed.
 */
const stdinValue =
  (err: Out): ValueSource =>
  async (name) => {
    if (!process.stdin.isTTY) return readFileSync(0);
    const line = await readHiddenLine(process.stdin, `Value for ${name} (input hidden): `, err);
    if (!line.ok) return null;
    // An Enter pressed too soon would store an empty value over a real one; one is stored from a pipe.
    if (line.value === '')
      throw new UsageError(
        `svc secrets put: an empty value is not stored from a terminal (nothing was sent); to store one: printf '' | svc secrets put ${name}`,
      );
    return Buffer.from(line.value, 'utf8');
  };

async function readValue(file: string, name: string, stdin: ValueSource): Promise<Buffer | null> {
  try {
    return file === '-' ? await stdin(name) : readFileSync(file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    if (file === '-') throw new UsageError(`cannot read stdin (${code})`);
    // The argument is a FILE; one that is not a file may be a value typed in by mistake: never echo it.
    throw new UsageError(
      `cannot read the FILE argument (${code}); a value is never taken from the command line: pipe it on stdin (printf %s "$VALUE" | svc secrets put NAME) or name a file`,
    );
  }
}

async function call(
  ctx: NodeContext<Out>,
  method: string,
  path: string,
  body?: Buffer,
  headers: Record<string, string> = {},
  raw = false,
): Promise<number> {
  const response = await requestNode('secrets', ctx, method, path, body, headers);
  if (response === null) return 1;
  const bytes = Buffer.from(await response.arrayBuffer());
  if (!response.ok) {
    ctx.err.write(describeRefusal(response.status, bytes.toString('utf8'), 'secrets'));
    return 1;
  }
  if (raw) ctx.out.write(bytes);
  else {
    const text = bytes.toString('utf8');
    nodeJson(response.status, text);
    ctx.out.write(text.endsWith('\n') ? text : `${text}\n`);
  }
  return 0;
}
