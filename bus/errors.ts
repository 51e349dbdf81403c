/** Typed bus errors. Every engine throws exactly these, so callers never see an engine's own. */

export class BusError extends Error {
  override name = 'BusError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An expected-last-sequence check failed: someone else appended first. */
export class WrongLastSequenceError extends BusError {
  override name = 'WrongLastSequenceError';
  constructor(
    readonly expected: number,
    readonly actual: number,
    options?: { cause?: unknown },
  ) {
    super(`wrong last sequence: expected ${expected}, found ${actual}`, options);
  }
}

/** A KV create/update/delete lost its compare-and-set. */
export class KvConflictError extends BusError {
  override name = 'KvConflictError';
  constructor(
    readonly bucket: string,
    readonly key: string,
    readonly expectedRevision: number,
    readonly currentRevision: number,
    options?: { cause?: unknown },
  ) {
    super(`kv ${bucket}/${key}: expected revision ${expectedRevision}, current ${currentRevision}`, options);
  }
}

/** A subject, stream, bucket or key name that the bus grammar refuses. */
export class InvalidNameError extends BusError {
  override name = 'InvalidNameError';
}

export class StreamNotFoundError extends BusError {
  override name = 'StreamNotFoundError';
}

/** No stream captures the subject being published. */
export class NoStreamForSubjectError extends BusError {
  override name = 'NoStreamForSubjectError';
}

export class NoRespondersError extends BusError {
  override name = 'NoRespondersError';
}

export class RequestTimeoutError extends BusError {
  override name = 'RequestTimeoutError';
}

/** A reply sent in parts of which some never came within the request's time, or which disagree. */
export class IncompleteReplyError extends BusError {
  override name = 'IncompleteReplyError';
}

/** The replier threw; its message (never a stack) travels back. */
export class RemoteError extends BusError {
  override name = 'RemoteError';
}

/** The engine could not start or reach its store/server; the message names the cause. */
export class EngineUnavailableError extends BusError {
  override name = 'EngineUnavailableError';
}

export class BusClosedError extends BusError {
  override name = 'BusClosedError';
}

/** Thrown by a consume handler to ask for redelivery after `delayMs`. */
export class RedeliverError extends BusError {
  override name = 'RedeliverError';
  constructor(
    message: string,
    readonly delayMs = 0,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Thrown by a consume handler to drop a message for good (poison message). */
export class TerminateError extends BusError {
  override name = 'TerminateError';
}

/** A backup could not be written, or a backup could not be restored (damaged copy, store not fresh). */
export class BackupError extends BusError {
  override name = 'BackupError';
}
