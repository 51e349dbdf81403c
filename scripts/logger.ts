/**
 * The process logger: pino JSON lines on stdout, or a readable form for a person at a terminal.
 * `SVC_LOG_FORMAT` (`json` | `pretty`) chooses; unset, a terminal gets `pretty` and anything else
 * (a pipe, a file, a test's child process, a log collector) gets JSON. `SVC_LOG_LEVEL` overrides
 * Tier A's `debug`. Credentials are redacted, and a record carries each key once.
 */
import { pino, type Logger } from 'pino';
import { prettyLine } from './log-pretty.js';

export const LogFormat = { Json: 'json', Pretty: 'pretty' } as const;
export type LogFormat = (typeof LogFormat)[keyof typeof LogFormat];

const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
type Level = (typeof levels)[number];

/** A bad `SVC_LOG_*` value: the CLI prints the message and exits 1, as for a refused Tier A file. */
export class LogSettingsError extends Error {
  override name = 'LogSettingsError';
}

export interface LogSettings {
  readonly format: LogFormat;
  readonly level: Level;
}

/** Reads `SVC_LOG_FORMAT` and `SVC_LOG_LEVEL`; `tty` is whether the destination is a terminal. */
export function logSettings(
  env: Readonly<Record<string, string | undefined>>,
  debug: boolean,
  tty: boolean,
): LogSettings {
  const format = env['SVC_LOG_FORMAT']?.trim().toLowerCase() || (tty ? LogFormat.Pretty : LogFormat.Json);
  if (format !== LogFormat.Json && format !== LogFormat.Pretty)
    throw new LogSettingsError(`SVC_LOG_FORMAT must be json or pretty, not "${format}"`);
  const level = env['SVC_LOG_LEVEL']?.trim().toLowerCase() || (debug ? 'debug' : 'info');
  if (!(levels as readonly string[]).includes(level))
    throw new LogSettingsError(`SVC_LOG_LEVEL must be one of ${levels.join(', ')}, not "${level}"`);
  return { format, level: level as Level };
}

const chindings = pino.symbols.chindingsSym;

/** Every key a binding has named, and pino's own: only these can be repeated in a line. */
const boundKeys = new Set(['level', 'time', 'msg', 'node']);
/** Bindings text -> the same without repeated keys. A request's child binds the same few routes and operators. */
const mergedBindings = new Map<string, string>();
const MERGED_BINDINGS_MAX = 1_000;

/**
 * Child loggers bind keys again (`component: 'readmodels'`, then `component: 'projection.events'`);
 * pino appends each binding, so a record would carry both. The child's binding replaces the parent's.
 */
function onChild(child: Logger): void {
  const holder = child as unknown as Record<symbol, string>;
  const text = holder[chindings] ?? '';
  if (text === '') return;
  let merged = mergedBindings.get(text);
  if (merged === undefined) {
    const bindings = JSON.parse(`{${text.slice(1)}}`) as Record<string, unknown>;
    for (const key of Object.keys(bindings)) boundKeys.add(key);
    merged = `,${JSON.stringify(bindings).slice(1, -1)}`;
    if (mergedBindings.size >= MERGED_BINDINGS_MAX) mergedBindings.clear();
    mergedBindings.set(text, merged);
  }
  holder[chindings] = merged;
}

/** Whether some bound key may occur twice in the line (a false yes only costs a re-serialisation). */
function mayRepeatKey(line: string): boolean {
  for (const key of boundKeys) {
    const needle = `"${key}":`;
    const first = line.indexOf(needle);
    if (first !== -1 && line.indexOf(needle, first + needle.length) !== -1) return true;
  }
  return false;
}

/**
 * The last line of defence for the same rule: a call's own key that a binding already names
 * (`log.info({ node }, …)` under the `node` base binding) is written once, with the call's value.
 */
export function uniqueKeys(line: string): string {
  if (!mayRepeatKey(line)) return line;
  try {
    return `${JSON.stringify(JSON.parse(line))}\n`;
  } catch {
    return line;
  }
}

/**
 * Standard output written asynchronously and in batches: lines gather until 4 KiB or 50 ms, then go out in one
 * system call, where a synchronous stdout pays one per line (a busy node logs a few lines per request). What is
 * still buffered when the process exits is written before it goes; a kill -9 loses at most the last 50 ms.
 */
function stdoutDestination(): { destination: pino.DestinationStream; wrote: () => void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  let unflushed = false;
  const timer = setInterval(() => {
    if (!unflushed) return;
    unflushed = false;
    try {
      destination.flush();
    } catch {
      unflushed = true; // Not open yet: the next tick writes it.
    }
  }, 50);
  timer.unref();
  process.once('exit', () => {
    clearInterval(timer);
    try {
      destination.flushSync();
    } catch {
      // Not open yet, or already gone: nothing to keep.
    }
  });
  return { destination, wrote: () => void (unflushed = true) };
}

export function createLogger(opts: {
  debug: boolean;
  node: string;
  destination?: NodeJS.WritableStream;
  env?: Readonly<Record<string, string | undefined>>;
}): Logger {
  const stdout = opts.destination ? null : stdoutDestination();
  const destination = opts.destination ?? stdout!.destination;
  const tty = ((opts.destination ?? process.stdout) as { isTTY?: boolean }).isTTY === true;
  const settings = logSettings(opts.env ?? process.env, opts.debug, tty);
  return pino(
    {
      level: settings.level,
      base: { node: opts.node },
      onChild,
      // Belt and braces: nothing should log these, and if something does they never reach the sink.
      redact: {
        paths: [
          'authorization',
          'headers.authorization',
          '*.authorization',
          'token',
          '*.token',
          'auth_token',
        ],
        censor: '[redacted]',
      },
      // Both read the line back as an object, which keeps the last of a repeated key.
      hooks: {
        streamWrite: (line) => {
          stdout?.wrote();
          return settings.format === LogFormat.Pretty ? prettyLine(line) : uniqueKeys(line);
        },
      },
    },
    destination,
  );
}
