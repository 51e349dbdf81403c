/**
 * A routed request after its synchronous steps (dispatch.ts): the body read within limits, the handler,
 * then its answer — whole, or streamed — written and logged, its failures answered with a code.
 */
import { BusError } from '../bus/index.js';
import { ApiError, errorReply } from './api-error.js';
import { isWrite } from './guard.js';
import { outcomeUnknownHint } from './outcome-unknown.js';
import { conventional, inRouteShape, seenOf } from './conventions.js';
import { receiveBody, type Receiving } from './receive.js';
import { StreamedBody } from './reply.js';
import type { WriteContext } from './respond.js';
import { openStream, type OpenStream, type StreamEnd } from './respond.stream.js';
import type { Actor, ApiReply, ApiRequest } from './types.js';
import { failedReply, type GatewayCore } from './dispatch.core.js';

type RequestFacts = Omit<ApiRequest, 'body' | 'log' | 'actor'> & { actor: Actor | null };

/** Reads the body, runs the handler and writes its answer; the body's hold is released at the end. */
export async function serve(core: GatewayCore, r: Receiving, facts: RequestFacts): Promise<void> {
  try {
    await handle(core, r, facts);
  } finally {
    // The body's bytes count against the listener until the answer is written (the handler holds them).
    r.hold.release();
  }
}

async function handle(core: GatewayCore, r: Receiving, facts: RequestFacts): Promise<void> {
  const { exchange, route, ctx, log, fields } = r;
  const body = await receiveBody(core.limits, r);
  if (body === null) return;
  if (exchange.aborted) return;
  // A client leaving while its handler runs is logged at once; the handler's answer is then dropped.
  exchange.onAbort = () =>
    log.warn({ ...fields, event: 'client_disconnected', phase: 'handler' }, 'client_disconnected');

  let reply: ApiReply;
  let open: OpenStream | null = null;
  try {
    reply = await route.def.handler({ ...facts, body, log });
    // A streamed body's first chunk is read before the status: its failure still gets a coded answer.
    if (reply.body instanceof StreamedBody) open = await openStream(reply.body);
  } catch (err) {
    if (err instanceof ApiError) reply = err.toReply();
    else if (err instanceof BusError && isWrite(facts.method)) {
      // The bus failed under a write (its server lost, a stream electing a leader): say so with a code.
      log.warn({ ...fields, event: 'outcome_unknown', err }, 'write outcome unknown');
      const hint = outcomeUnknownHint(facts.path);
      reply = errorReply('outcome_unknown', hint === undefined ? {} : { hint });
    } else {
      log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
      reply = failedReply;
    }
    reply = inRouteShape(route, reply, facts.headers);
  }
  reply = conventional(reply, seenOf(facts, route));
  if (open !== null)
    return streamAnswer(core, r, { ...ctx, close: ctx.close || core.isDraining() }, reply, open);
  const ms = Math.round(performance.now() - exchange.startedAt);
  let sent: boolean;
  try {
    sent = exchange.send({ ...ctx, close: ctx.close || core.isDraining() }, reply);
  } catch (err) {
    // The reply could not be encoded (nothing was written yet).
    log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
    [reply, sent] = [failedReply, exchange.send(ctx, failedReply)];
  }
  if (sent) r.answered(reply.status);
  if (sent) log.info({ ...fields, ...reply.logged, status: reply.status, ms }, 'request');
  else
    log.info(
      { ...fields, ...reply.logged, event: 'answer_dropped', status: reply.status, ms },
      'answer dropped: client gone',
    );
}

/** A streamed answer: logged when it ended, whole, stopped by the client, or cut short by its reading. */
async function streamAnswer(
  core: GatewayCore,
  r: Receiving,
  ctx: WriteContext,
  reply: ApiReply,
  open: OpenStream,
): Promise<void> {
  const { exchange, log, fields } = r;
  // From here the stream's end says what happened; the handler-phase abort line would say it twice.
  exchange.onAbort = null;
  let end: StreamEnd | null;
  try {
    end = await exchange.stream(ctx, reply, open);
  } catch (err) {
    // The reply could not be encoded (nothing was written yet).
    log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
    if (exchange.send(ctx, failedReply)) r.answered(failedReply.status);
    return;
  }
  const ms = Math.round(performance.now() - exchange.startedAt);
  if (end === null) {
    log.info({ ...fields, event: 'answer_dropped', status: reply.status, ms }, 'answer dropped: client gone');
    return;
  }
  r.answered(reply.status);
  const line = { ...fields, status: reply.status, ms, bytes: end.bytes, size: open.size };
  if (end.outcome === 'done') log.info(line, 'request');
  else if (end.outcome === 'stopped')
    log.warn({ ...line, event: 'client_disconnected', phase: 'answer' }, 'client_disconnected');
  else log.error({ ...line, event: 'answer_cut', err: end.err }, 'answer cut: its body could not be read');
}
