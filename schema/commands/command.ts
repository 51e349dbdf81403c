/**
 * What a command is: the one subject its server answers on, the request it takes and the reply it gives
 * (DESIGN.md "Commands have one catalogue"). Entries are declared in this folder only; senders and
 * servers reach them through `Commands` and the bus helpers `sendCommand` / `serveCommand`.
 */
import type { z } from 'zod';

export interface Command<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  /** `area.verb` (with its address when it has one), for logs and errors. */
  readonly name: string;
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
  /** How long a sender waits for the reply unless it says otherwise. */
  readonly timeoutMs: number;
}

/** What a sender passes (before the schema's defaults). */
export type CommandRequest<C extends Command> = z.input<C['request']>;
/** What the server's handler receives once the request validated. */
export type CommandBody<C extends Command> = z.output<C['request']>;
/** What the server answers and the sender gets back once the reply validated. */
export type CommandReply<C extends Command> = z.output<C['reply']>;

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** `svc.cmd.<area>.<verb>`; tokens that come from data (a node id) are checked so none can widen it. */
function commandSubject(area: string, verb: string): string {
  for (const [kind, value] of [
    ['command area', area],
    ['command verb', verb],
  ] as const) {
    if (!TOKEN.test(value))
      throw new RangeError(`invalid ${kind} "${value}" for a subject: letters, digits, _ and - only`);
  }
  return `svc.cmd.${area}.${verb}`;
}

export function defineCommand<Req extends z.ZodType, Rep extends z.ZodType>(spec: {
  readonly area: string;
  readonly verb: string;
  readonly request: Req;
  readonly reply: Rep;
  readonly timeoutMs: number;
}): Command<Req, Rep> {
  return {
    name: `${spec.area}.${spec.verb}`,
    subject: commandSubject(spec.area, spec.verb),
    request: spec.request,
    reply: spec.reply,
    timeoutMs: spec.timeoutMs,
  };
}
