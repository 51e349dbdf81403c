/**
 * NATS errors in, bus errors out: callers never see a NATS class. Each bus error keeps the NATS error
 * as `cause` for logs. Recognised by `name` and API code, since the client exports few classes.
 */
import { JetStreamApiError } from '@nats-io/jetstream';
import {
  BusClosedError,
  BusError,
  EngineUnavailableError,
  NoStreamForSubjectError,
  StreamNotFoundError,
  WrongLastSequenceError,
} from '../errors.js';

/** JetStream API error codes svc reacts to (nats-server's `errors.json`). */
export const ApiCode = {
  StreamNotFound: 10059,
  ConsumerNotFound: 10014,
  StreamNameInUse: 10058,
  /** The cluster has too few (online) servers to place the replicas asked for. */
  ClusterNoPeers: 10005,
  WrongLastSequence: 10071,
  ConsumerExists: 10148,
  ConsumerNameExists: 10013,
} as const;

export function apiCode(error: unknown): number | undefined {
  return error instanceof JetStreamApiError ? error.code : undefined;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : '';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True for "the connection is closed or draining". */
export function isClosed(error: unknown): boolean {
  const name = errorName(error);
  return name === 'ClosedConnectionError' || name === 'DrainingConnectionError';
}

/** True when a request found nobody listening (core no-responders, or JetStream's wrapper of it). */
export function isNoResponders(error: unknown): boolean {
  const name = errorName(error);
  if (name === 'NoResponders' || name === 'JetStreamNotEnabled') return true;
  if (name === 'RequestError') return isNoResponders((error as Error).cause);
  return false;
}

/**
 * A request whose link to the server dropped before the answer came: the server it went to may be gone
 * with it, so no answer is coming. Like a timeout, the request may or may not have been handled.
 */
export class LinkDroppedError extends Error {
  override readonly name = 'LinkDroppedError';
}

export function isTimeout(error: unknown): boolean {
  if (error instanceof LinkDroppedError) return true;
  const name = errorName(error);
  if (name === 'TimeoutError') return true;
  if (name === 'RequestError') return isTimeout((error as Error).cause);
  return false;
}

/** Parses the actual sequence out of "wrong last sequence: 7". */
function actualSequence(error: unknown): number {
  const match = /wrong last sequence: (\d+)/.exec(errorMessage(error));
  return match ? Number(match[1]) : -1;
}

export interface TranslateOptions {
  /** The sequence a publish expected, for WrongLastSequenceError. */
  readonly expected?: number;
  /** A stream publish: no responders means no stream captures the subject (else: JetStream is off). */
  readonly publish?: boolean;
}

/** Translates a NATS error raised while doing `what` (a short phrase naming the stream or subject). */
export function translate(error: unknown, what: string, opts: TranslateOptions = {}): BusError {
  if (error instanceof BusError) return error;
  const cause = { cause: error };
  if (isClosed(error)) return new BusClosedError('the bus is closed', cause);
  const code = apiCode(error);
  if (code === ApiCode.WrongLastSequence) {
    return new WrongLastSequenceError(opts.expected ?? -1, actualSequence(error), cause);
  }
  if (code === ApiCode.StreamNotFound) return new StreamNotFoundError(`${what}: stream not found`, cause);
  if (isNoResponders(error)) {
    return opts.publish
      ? new NoStreamForSubjectError(`${what}: no stream captures the subject`, cause)
      : new EngineUnavailableError(
          `${what}: JetStream is not answering (is it enabled on the server?)`,
          cause,
        );
  }
  // Raised here, not by NATS: no cause worth keeping, whose message would only repeat this one in logs.
  if (error instanceof LinkDroppedError) return new EngineUnavailableError(`${what}: ${error.message}`);
  if (isTimeout(error)) {
    return new EngineUnavailableError(`${what}: no answer from the NATS server in time`, cause);
  }
  return new BusError(`${what}: ${errorMessage(error)}`, cause);
}
