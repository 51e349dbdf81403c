/**
 * The one way a command travels (DESIGN.md "Commands have one catalogue"): `sendCommand` encodes a
 * catalogue entry's request, waits for the reply and validates it; `serveCommand` validates each request
 * before its handler sees it and encodes the handler's reply. Transport failures stay the bus's typed
 * errors (NoRespondersError, RequestTimeoutError, RemoteError, BusClosedError), so callers map them as
 * they always have.
 */
import type { Command } from '../schema/index.js';
import type { Bus, CoreMessage, Headers, Subscription } from './bus.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One schema problem, without the value that caused it (a request may carry a secret). */
interface CommandIssue {
  readonly path: string;
  readonly message: string;
}

interface Issues {
  readonly issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>;
}

const issuesOf = (error: Issues): CommandIssue[] =>
  error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));

const summary = (issues: readonly CommandIssue[]): string =>
  issues
    .slice(0, 5)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join('; ');

/**
 * The reply was not JSON or not the catalogue's reply shape: the server and this sender disagree. Not a
 * BusError: the transport worked, so it is never mistaken for an unknown outcome.
 */
export class CommandReplyError extends Error {
  override name = 'CommandReplyError';
  constructor(
    readonly command: string,
    readonly issues: readonly CommandIssue[],
  ) {
    super(`${command}: the reply does not match its schema (${summary(issues)})`);
  }
}

/** A request that is not JSON or not the catalogue's request shape; the server answers it as an error. */
class CommandRequestError extends Error {
  override name = 'CommandRequestError';
  constructor(
    readonly command: string,
    readonly issues: readonly CommandIssue[],
  ) {
    super(`${command}: the request does not match its schema (${summary(issues)})`);
  }
}

interface SendCommandOptions {
  /** Default (also when undefined): the catalogue entry's `timeoutMs`. */
  readonly timeoutMs?: number | undefined;
  readonly headers?: Headers;
}

function decodeJson(data: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(data)) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Sends `body` and resolves with the validated reply; the bus's errors pass through unchanged. */
export async function sendCommand<Body, Reply, Input>(
  bus: Pick<Bus, 'request'>,
  command: Command<Body, Reply, Input>,
  body: Input,
  opts: SendCommandOptions = {},
): Promise<Reply> {
  const answer = await bus.request(command.subject, encoder.encode(JSON.stringify(body)), {
    timeoutMs: opts.timeoutMs ?? command.timeoutMs,
    ...(opts.headers ? { headers: opts.headers } : {}),
  });
  const decoded = decodeJson(answer.data);
  if (!decoded.ok) throw new CommandReplyError(command.name, [{ path: '', message: 'not JSON' }]);
  const reply = command.reply.safeParse(decoded.value);
  if (!reply.success) throw new CommandReplyError(command.name, issuesOf(reply.error));
  return reply.data;
}

type CommandHandler<Body, Reply> = (body: Body, message: CoreMessage) => Reply | Promise<Reply>;

interface ServeCommandOptions<Reply> {
  /**
   * The reply to a request that does not validate, for a command whose reply can say so itself. Without
   * it the request is answered as an error (the sender sees RemoteError naming the problems).
   * `raw` is the decoded JSON, or undefined when the bytes were not JSON.
   */
  readonly invalid?: (raw: unknown, issues: readonly CommandIssue[]) => Reply;
}

/** Answers `command` until stopped; a handler that throws is answered as an error, as `Bus.reply` does. */
export function serveCommand<Body, Reply, Input>(
  bus: Pick<Bus, 'reply'>,
  command: Command<Body, Reply, Input>,
  handler: CommandHandler<Body, Reply>,
  opts: ServeCommandOptions<Reply> = {},
): Subscription {
  const encode = (reply: Reply): Uint8Array => encoder.encode(JSON.stringify(reply));
  const refuse = (raw: unknown, issues: CommandIssue[]): Uint8Array => {
    if (opts.invalid) return encode(opts.invalid(raw, issues));
    throw new CommandRequestError(command.name, issues);
  };
  return bus.reply(command.subject, async (message) => {
    const decoded = decodeJson(message.data);
    if (!decoded.ok) return refuse(undefined, [{ path: '', message: 'not JSON' }]);
    const body = command.request.safeParse(decoded.value);
    if (!body.success) return refuse(decoded.value, issuesOf(body.error));
    return encode(await handler(body.data, message));
  });
}
