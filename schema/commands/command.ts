/**
 * What a command is: the one subject its server answers on, the request it takes and the reply it gives
 * (DESIGN.md "Commands have one catalogue"). Entries are declared in this folder only; senders and
 * servers reach them through `Commands` and the bus helpers `sendCommand` / `serveCommand`.
 */
import type { z } from 'zod';

/**
 * `Body` is what the server's handler receives once the request validated, `Input` what a sender passes
 * (before the schema's defaults), `Reply` what the server answers and the sender gets back validated.
 */
export interface Command<Body = unknown, Reply = unknown, Input = Body> {
  /** `area.verb` (with its address when it has one), for logs and errors. */
  readonly name: string;
  readonly subject: string;
  readonly request: z.ZodType<Body, Input>;
  readonly reply: z.ZodType<Reply>;
  /** How long a sender waits for the reply unless it says otherwise. */
  readonly timeoutMs: number;
}

const TOKEN = /^[A-Za-z0-9_-]+$/;

function token(kind: string, value: string): string {
  if (!TOKEN.test(value))
    throw new RangeError(`invalid ${kind} "${value}" for a subject: letters, digits, _ and - only`);
  return value;
}

/**
 * `svc.cmd.<area>.<verb>`, or `svc.cmd.<area>-<address>.<verb>` for a command only one addressee answers
 * (a node). Tokens are checked, so an address that comes from data can never widen the subject.
 */
export function defineCommand<Body, Reply, Input>(spec: {
  readonly area: string;
  readonly verb: string;
  readonly address?: string;
  readonly request: z.ZodType<Body, Input>;
  readonly reply: z.ZodType<Reply>;
  readonly timeoutMs: number;
}): Command<Body, Reply, Input> {
  const area =
    spec.address === undefined
      ? token('command area', spec.area)
      : `${token('command area', spec.area)}-${token('command address', spec.address)}`;
  const name = `${area}.${token('command verb', spec.verb)}`;
  return {
    name,
    subject: `svc.cmd.${name}`,
    request: spec.request,
    reply: spec.reply,
    timeoutMs: spec.timeoutMs,
  };
}
