/**
 * The process logger: pino JSON lines on stdout, or a readable form for a person at a terminal.
 * `SVC_LOG_FORMAT` (`json` | `pretty`) chooses; unset, a terminal gets `pretty` and anything else
 * (a pipe, a file, a test's child process, a log collector) gets JSON. `SVC_LOG_LEVEL` overrides
 * Tier A's `debug`. Credentials are redacted, and a record carries each key once.
 */
import { pino, type Logger } from 'pino';
import { maskQueryCredentials } from '../schema/index.js';
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

/** The keys a logger's line already carries before the call's own: pino's and its bindings'. */
const boundKeysSym = Symbol('svc.boundKeys');
const rootKeys: ReadonlySet<string> = new Set(['level', 'time', 'msg', 'node']);
type Bound = Record<symbol, ReadonlySet<string> | string | undefined>;
/** Bindings text -> the same without repeated keys, and its keys. Requests bind the same few routes and operators. */
const mergedBindings = new Map<string, { readonly text: string; readonly keys: ReadonlySet<string> }>();
const MERGED_BINDINGS_MAX = 1_000;

/**
 * Child loggers bind keys again (`component: 'readmodels'`, then `component: 'projection.events'`);
 * pino appends each binding, so a record would carry both. The child's binding replaces the parent's.
 */
function onChild(child: Logger): void {
  const holder = child as unknown as Bound;
  const text = (holder[chindings] as string | undefined) ?? '';
  if (text === '') return;
  let merged = mergedBindings.get(text);
  if (merged === undefined) {
    const bindings = JSON.parse(`{${text.slice(1)}}`) as Record<string, unknown>;
    merged = {
      text: `,${JSON.stringify(bindings).slice(1, -1)}`,
      keys: new Set([...rootKeys, ...Object.keys(bindings)]),
    };
    if (mergedBindings.size >= MERGED_BINDINGS_MAX) mergedBindings.clear();
    mergedBindings.set(text, merged);
  }
  holder[chindings] = merged.text;
  holder[boundKeysSym] = merged.keys;
}

/**
 * Whether the line being written names a key its logger already bound (`log.info({ node }, …)` under the
 * `node` base binding). Set by the call, read by the write that the same call makes next.
 */
let repeatsKey = false;

function noteRepeatedKeys(this: Logger, args: unknown[]): void {
  const first = args[0];
  repeatsKey = false;
  if (first === null || typeof first !== 'object') return;
  const bound = ((this as unknown as Bound)[boundKeysSym] as ReadonlySet<string> | undefined) ?? rootKeys;
  // for…in, not Object.keys: no array per line (a line's object is a literal: no inherited keys to skip).
  for (const key in first) {
    if (bound.has(key)) {
      repeatsKey = true;
      return;
    }
  }
}

/** The last line of defence for the same rule: a repeated key is written once, with the call's value. */
export function uniqueKeys(line: string): string {
  try {
    return `${JSON.stringify(JSON.parse(line))}\n`;
  } catch {
    return line;
  }
}

/** The line as it goes out: pretty for a terminal, otherwise as built, re-read once if its call repeated a key. */
function lineToWrite(written: string, format: LogFormat): string {
  const line = maskQueryCredentials(withoutUrlLogins(written));
  if (format === LogFormat.Pretty) return prettyLine(line);
  if (!repeatsKey) return line;
  repeatsKey = false;
  return uniqueKeys(line);
}

/** The login part of a URL (`https://user:password@host`), up to the `@` that ends it. */
const urlLogin = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#@"\\]+@/g;

/**
 * A URL's login is a credential, wherever it turns up in a line: fetch's own error message quotes the whole
 * URL it refused, a stored integration URL written with a login among them. Masked as config reads mask it;
 * so is a credential in a URL's query (`?private_token=…`, maskQueryCredentials).
 */
function withoutUrlLogins(line: string): string {
  return line.includes('@') ? line.replace(urlLogin, '$1***@') : line;
}

/** Lines gathered before they are handed to standard output as one batch. */
const BATCH_BYTES = 4096;
/** The buffer lines are encoded into, batch after batch, before a new one is taken. */
const SLAB_BYTES = 64 * 1024;
/**
 * Bytes held for a standard output that does not read (a stalled pipe, a stopped collector) before lines are
 * dropped: memory stays bounded whoever reads the logs; the count dropped goes out once it reads again.
 */
const HELD_BYTES = 16 * 1024 * 1024;

/**
 * Standard output written asynchronously and in batches: lines gather until 4 KiB or 50 ms, then go out in one
 * system call, where a synchronous stdout pays one per line (a busy node logs a few lines per request). What is
 * still buffered when the process exits is written before it goes; a kill -9 loses at most the last 50 ms.
 * Lines are encoded straight into a shared buffer and handed over 4 KiB at a time as bytes: a buffer made per
 * line (and sonic-boom joining them) was a fifth of a request line's cost, and as text sonic-boom measures the
 * whole batch gathered so far on every line (flattening it first), a cost that grows with the batch.
 */
function stdoutDestination(droppedNotice: (dropped: number) => string): pino.DestinationStream {
  const out = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES, contentMode: 'buffer' });
  // Lines are encoded into a slab one after the other; a batch is handed over as a view of its bytes (no
  // copy) and the slab is never written there again; a full slab is left to sonic-boom and a new one begun.
  let slab = Buffer.allocUnsafe(SLAB_BYTES);
  let start = 0;
  let used = 0;
  // Bytes handed over and not yet written. A flush while a write is in flight does nothing, and what is left
  // under minLength when that write ends waits for the next line: the timer asks again until it is out
  // (an idle node's last lines, "node serving" among them, were once held that way).
  let pending = 0;
  out.on('write', (written: number) => {
    pending -= written;
  });
  let dropped = 0;
  const handOver = (): void => {
    if (used === start) return;
    const bytes = slab.subarray(start, used);
    start = used;
    pending += bytes.length;
    // The stream takes bytes in this content mode; its type says text.
    out.write(bytes as unknown as string);
  };
  const encode = (line: string): void => {
    // A UTF-16 unit is at most 3 bytes in UTF-8: room for the worst case, else the exact size is measured (a
    // slab per long line would keep 64 KiB alive for each 20 KiB line handed over), else a new slab.
    if (used + line.length * 3 > slab.length) {
      const bytes = Buffer.byteLength(line);
      if (used + bytes > slab.length) {
        handOver();
        slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, bytes));
        start = used = 0;
      }
    }
    used += slab.write(line, used, 'utf8');
    if (used - start >= BATCH_BYTES) handOver();
  };
  const write = (line: string): boolean => {
    if (pending + (used - start) + line.length > HELD_BYTES) {
      dropped += 1;
      return true;
    }
    if (dropped > 0) {
      encode(droppedNotice(dropped));
      dropped = 0;
    }
    encode(line);
    return true;
  };
  const timer = setInterval(() => {
    handOver();
    if (pending <= 0) return;
    try {
      out.flush();
    } catch {
      // Not open yet: the next tick writes it.
    }
  }, 50);
  timer.unref();
  process.once('exit', () => {
    clearInterval(timer);
    try {
      if (dropped > 0) encode(droppedNotice(dropped));
      handOver();
      out.flushSync();
    } catch {
      // Not open yet, or already gone: nothing to keep.
    }
  });
  // `logger.flush()` (before the node exits) hands over the batch and asks sonic-boom to write it now.
  const flush = (cb?: (err?: Error) => void): void => {
    handOver();
    out.flush(cb ?? (() => undefined));
  };
  return { write, flush } as pino.DestinationStream;
}

export function createLogger(opts: {
  debug: boolean;
  /** null before the node has an id: its Tier A file was refused. */
  node: string | null;
  destination?: NodeJS.WritableStream;
  env?: Readonly<Record<string, string | undefined>>;
}): Logger {
  const tty = ((opts.destination ?? process.stdout) as { isTTY?: boolean }).isTTY === true;
  const settings = logSettings(opts.env ?? process.env, opts.debug, tty);
  const destination =
    opts.destination ??
    stdoutDestination((dropped) =>
      lineToWrite(
        `${JSON.stringify({ level: 40, time: Date.now(), node: opts.node, event: 'log_lines_dropped', dropped, msg: 'log lines dropped: standard output was not read' })}\n`,
        settings.format,
      ),
    );
  const logger = pino(
    {
      level: settings.level,
      base: { node: opts.node },
      onChild,
      // Belt and braces: nothing should log these, and if something does they never reach the sink.
      redact: {
        paths: [
          // Header objects keep the case they were written in (fetch's Headers lower-cases; a literal need not).
          'authorization',
          'Authorization',
          'headers.authorization',
          'headers.Authorization',
          '*.authorization',
          '*.Authorization',
          'headers.cookie',
          'headers.Cookie',
          'token',
          '*.token',
          'auth_token',
        ],
        censor: '[redacted]',
      },
      // Both read the line back as an object, which keeps the last of a repeated key.
      hooks: {
        logMethod(args, method) {
          noteRepeatedKeys.call(this, args);
          method.apply(this, args);
        },
        streamWrite: (line) => lineToWrite(line, settings.format),
      },
    },
    destination,
  );
  primitivesUnredacted(logger);
  return logger;
}

type Stringifier = (value: unknown, safe?: unknown) => string | undefined;

/**
 * The `*.…` redact paths make pino pass every field of every line (strings and numbers too) through its
 * redactor, which clones and walks the value before serialising it: half a request line's cost. A string,
 * number, boolean or null has no field to censor, and the redactor gives exactly its JSON text, so those go
 * straight to JSON; objects (and anything else) still go through the redactor.
 */
function primitivesUnredacted(logger: Logger): void {
  const stringifiers = (logger as unknown as Record<symbol, Record<symbol, Stringifier | undefined>>)[
    pino.symbols.stringifiersSym
  ];
  const wildcard = stringifiers?.[pino.symbols.wildcardFirstSym];
  if (stringifiers === undefined || wildcard === undefined) return;
  stringifiers[pino.symbols.wildcardFirstSym] = (value, safe) => {
    const type = typeof value;
    return type === 'string' || type === 'number' || type === 'boolean' || value === null
      ? JSON.stringify(value)
      : wildcard(value, safe);
  };
}
