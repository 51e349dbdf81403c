/**
 * `svc events <verb>`: the event history and the live feed of a running node from a terminal. Rows are
 * printed as JSON lines on stdout; notes (the next cursor, a trace's total) go to stderr. The token comes
 * from SVC_TOKEN (needed when the node refuses anonymous reads).
 */
import {
  helpExit,
  nodeContext,
  nodeFlagsHelp,
  parseNodeArgs,
  refuseOtherVerbsFlags,
  type NodeContext,
} from './cli-args.js';
import { openWs, UpgradeRefusedError } from './ws-client.js';
import { nodeOrigin, requestNode, tokenHint, unreachable, unusableNode } from './cli-http.js';
import { unknownVerb } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { describeRefusal } from './cli-refusal.js';
import { pathSegment } from './cli-json.js';
import { anyJson, list, nullable, num, obj, readAnswer, record, str, type Shape } from './cli-shape.js';
import { intFlag, nonEmptyFlag, oneOfFlag, shapeFlag } from './cli-flags.js';
import { EventCategory, parseCursorInstant, queryRanges } from '../schema/index.js';

const { eventsLimit } = queryRanges;

const eventsVerbs = ['list', 'get', 'trace', 'tail'];

export const eventsHelp = `Usage: svc events <verb> [flags]

Verbs (against a running node; token from $SVC_TOKEN when reads need one):
  list   [--limit N] [--category C] [--seat SEAT] [--feed-only] [--before-time T --before-id ID] [--all]
         event rows newest first, --limit per page (${eventsLimit.min} to ${eventsLimit.max}, default ${eventsLimit.fallback});
         --all follows the cursor to the end of history
  get    EVENT_ID          one event with its payload
  trace  TRACE_ID          the events of one trace, oldest first (at most 500; the total on stderr)
  tail   [--category C] [--seat SEAT]
         live feed events from WS /ws/stream until interrupted
SEAT is a seat's handle (any case) or its agent_id UUID, as /agents rows give it.

${nodeFlagsHelp}
Exit codes: 0 done; 1 refused (the answer's error code is printed) or unreachable; 2 bad flags;
3 tail: the node closed the stream (it stopped or went away); 130 tail: interrupted (Ctrl-C; 143 SIGTERM).
`;

/** The fields of a `GET /events` page the listing reads (rows are printed as they came). */
const EventsPage = obj({
  rows: list(anyJson),
  next: nullable(obj({ before_time: str, before_id: str })),
});
const TraceAnswer = obj({ events: list(anyJson), total: num });

/** The node's answer to a GET, read as `shape` (`what` names it), or `{ok: false}` once a refusal was said. */
async function get<T>(
  ctx: NodeContext,
  path: string,
  shape: Shape<T>,
  what: string,
): Promise<{ ok: true; body: T } | { ok: false }> {
  const response = await requestNode('events', ctx, 'GET', path);
  if (response === null) return { ok: false };
  const text = await response.text();
  if (!response.ok) {
    // Worded as every client command words a refusal: status, code, detail, the hint.
    ctx.err.write(describeRefusal(response.status, text, 'events'));
    return { ok: false };
  }
  return { ok: true, body: readAnswer(shape, text, what, { status: response.status, asIs: false }) };
}

/** Each verb's own flags, beside --url, --config, --timeout and --help. */
const eventsVerbFlags: Readonly<Record<string, readonly string[]>> = {
  list: ['limit', 'category', 'seat', 'feed-only', 'before-time', 'before-id', 'all'],
  get: [],
  trace: [],
  tail: ['category', 'seat'],
};

export async function runEvents(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values, positionals } = parseNodeArgs(
    args,
    {
      limit: { type: 'string' },
      category: { type: 'string' },
      seat: { type: 'string' },
      'feed-only': { type: 'boolean' },
      'before-time': { type: 'string' },
      'before-id': { type: 'string' },
      all: { type: 'boolean' },
    },
    'events',
    eventsVerbFlags,
  );
  const [verb, target, ...extra] = positionals;
  const exit = helpExit(eventsHelp, values.help, verb, out, err);
  if (exit !== null) return exit;
  if (!eventsVerbs.includes(verb!)) throw unknownVerb('events', verb!, eventsVerbs);
  // `list` and `tail` take no argument: `svc events list ava` must not read as a filter it ignored.
  const stray = verb === 'list' || verb === 'tail' ? [target, ...extra] : extra;
  if (stray.some((word) => word !== undefined))
    throw new UsageError(`unexpected arguments: ${stray.filter((w) => w !== undefined).join(' ')}`);
  refuseOtherVerbsFlags('events', verb!, values, eventsVerbFlags);
  const limit = checkFlags(values);
  const ctx = await nodeContext(values, env, out, err);
  const need = (what: string): string => {
    if (!target) throw new UsageError(`svc events ${verb} needs ${what}`);
    return target;
  };
  switch (verb) {
    case 'list': {
      const query = new URLSearchParams();
      if (limit !== undefined) query.set('limit', limit);
      if (values.category) query.set('category', values.category);
      if (values.seat) query.set('agent_id', values.seat);
      if (values['feed-only']) query.set('feed_only', 'true');
      if (values['before-time'] !== undefined) query.set('before_time', values['before-time']);
      if (values['before-id'] !== undefined) query.set('before_id', values['before-id']);
      for (;;) {
        const page = await get(ctx, `/events?${query.toString()}`, EventsPage, 'a page of events');
        if (!page.ok) return 1;
        for (const row of page.body.rows) out.write(`${JSON.stringify(row)}\n`);
        const next = page.body.next;
        if (next === null) return 0;
        if (!values.all) {
          // Pasted into a shell as printed: each value quoted, and `=` before one that starts with a dash.
          err.write(
            `more: ${shellFlag('before-time', next.before_time)} ${shellFlag('before-id', next.before_id)}\n`,
          );
          return 0;
        }
        query.set('before_time', next.before_time);
        query.set('before_id', next.before_id);
      }
    }
    case 'get': {
      const answer = await get(ctx, `/events/${pathSegment(need('EVENT_ID'))}`, record, 'an event');
      if (!answer.ok) return 1;
      out.write(`${JSON.stringify(answer.body, null, 2)}\n`);
      return 0;
    }
    case 'trace': {
      const answer = await get(ctx, `/events/trace/${pathSegment(need('TRACE_ID'))}`, TraceAnswer, 'a trace');
      if (!answer.ok) return 1;
      for (const e of answer.body.events) out.write(`${JSON.stringify(e)}\n`);
      err.write(`total: ${answer.body.total}\n`);
      return 0;
    }
    case 'tail': {
      const seat = values.seat === undefined ? undefined : await seatHandle(ctx, values.seat);
      return seat === null ? 1 : tail(ctx, values.category, seat);
    }
    default:
      throw unknownVerb('events', verb!, eventsVerbs);
  }
}

const categories: readonly string[] = Object.values(EventCategory);

/** `value` as one POSIX shell word: as is when it holds only safe characters, else single-quoted. */
const shellWord = (value: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;

/** `--name value`, or `--name=value` when the value starts with a dash (the parser takes it for a flag). */
const shellFlag = (name: string, value: string): string =>
  value.startsWith('-') ? `--${name}=${shellWord(value)}` : `--${name} ${shellWord(value)}`;

/**
 * What the flags can be told wrong by themselves, said in their own names (exit 2) before any request; the
 * `--limit` to send. Above its range the node would clamp: refused here rather than pages other than asked.
 */
function checkFlags(values: {
  readonly limit?: string;
  readonly category?: string;
  readonly seat?: string;
  readonly 'before-time'?: string;
  readonly 'before-id'?: string;
}): string | undefined {
  oneOfFlag('--category', values.category, categories);
  // Empty, the node reads it as absent: every seat's rows, not the one meant (`--seat "$UNSET"`).
  nonEmptyFlag('--seat', values.seat, 'a seat handle');
  if ((values['before-time'] === undefined) !== (values['before-id'] === undefined))
    throw new UsageError('--before-time and --before-id go together (the "more:" line prints both)');
  // The cursor's instant as the node reads it (its 400 says "before_time is not an RFC 3339 timestamp").
  shapeFlag(
    '--before-time',
    values['before-time'],
    (text) => parseCursorInstant(text) !== null,
    'an RFC 3339 timestamp, as the "more:" line prints it',
  );
  nonEmptyFlag('--before-id', values['before-id'], 'an event id, as the "more:" line prints it');
  return intFlag('--limit', values.limit, eventsLimit);
}

/**
 * The handle event frames name a seat by, for `--seat` as the reads take it (a handle in any case, or the
 * seat's agent_id UUID from `/agents`): tail filters frames itself, so it asks the node which seat is meant.
 * A name `/agents` does not know (a human seat, a seat not yet configured) is matched as a handle; a UUID
 * it does not know names no seat and is refused, as a tail that could never print would be. Null: refused.
 */
async function seatHandle(ctx: NodeContext, seat: string): Promise<string | null> {
  // `/agents/{id}` takes a UUID in lower case, as `/agents` prints it.
  const asked = UUID.test(seat) ? seat.toLowerCase() : seat;
  const response = await requestNode('events', ctx, 'GET', `/agents/${pathSegment(asked)}`);
  if (response === null) return null;
  const text = await response.text();
  if (response.ok) {
    return readAnswer(obj({ id: str }), text, 'an agent', { status: response.status, asIs: false }).id;
  }
  if (response.status !== 404 || UUID.test(seat)) {
    ctx.err.write(describeRefusal(response.status, text, 'events'));
    return null;
  }
  return seat.toLowerCase();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Prints every `event` frame (filtered here) until the socket closes or the process is interrupted. */
async function tail(
  ctx: NodeContext,
  category: string | undefined,
  seat: string | undefined,
): Promise<number> {
  const ws = ctx.url.replace(/^http/, 'ws');
  const origin = nodeOrigin(ws);
  if (origin === null) {
    ctx.err.write(unusableNode('events'));
    return 1;
  }
  try {
    const client = await openWs(
      `${ws}/ws/stream`,
      (text) => {
        const frame = JSON.parse(text) as { kind: string; data: Record<string, unknown> };
        if (frame.kind !== 'event') return;
        if (category !== undefined && frame.data['category'] !== category) return;
        if (seat !== undefined && frame.data['agent_id'] !== seat) return;
        ctx.out.write(`${JSON.stringify(frame.data)}\n`);
      },
      ctx.token ? { Authorization: `Bearer ${ctx.token}` } : {},
    );
    // Interrupted: 128 + the signal, as a shell reports a command it stopped, so `tail && next` stops too.
    let interrupted: number | null = null;
    const onInt = (): void => {
      interrupted = 130;
      client.close();
    };
    const onTerm = (): void => {
      interrupted = 143;
      client.close();
    };
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    // Said once the handlers hold: a Ctrl-C right after the banner is an interruption like any later one.
    ctx.err.write(`tailing ${origin}/ws/stream\n`);
    await client.closed;
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    if (interrupted !== null) return interrupted;
    // The node stopped or went away: a script following the feed must know it is no longer following it.
    ctx.err.write('svc events tail: the node closed the stream (it stopped or is unreachable)\n');
    return 3;
  } catch (error) {
    if (error instanceof UpgradeRefusedError) {
      ctx.err.write(
        error.status === 401
          ? tokenHint('events', ctx.token !== undefined)
          : describeRefusal(error.status, error.body, 'events'),
      );
      return 1;
    }
    ctx.err.write(unreachable('events', origin, error));
    return 1;
  }
}
