/**
 * How a tool-server connection ended, in words for `last_failure` and the log: a stdio child's exit or
 * signal, the SDK's refusal of an oversized message, a remote that broke at the transport.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { errorText } from './toolservers.result.js';

/** How a stdio child ended: its exit code, or the signal that killed it. */
export interface Exit {
  readonly attempt: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export const exitText = (exit: Exit): string =>
  exit.signal !== null
    ? `the tool server was killed by ${exit.signal}`
    : `the tool server exited with code ${exit.code}`;
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/**
 * The SDK's stdio transport refuses a message over its read buffer (10 MiB, `STDIO_DEFAULT_MAX_BUFFER_SIZE`)
 * and closes the connection: the child then exits 0, which alone would read as a clean exit.
 */
export const oversizeText = (error: unknown): string | null =>
  /ReadBuffer exceeded maximum size of (\d+) bytes/.test(errorText(error))
    ? 'the tool server sent a message over the 10 MiB limit of a stdio message (a tool result or tool list too large); the connection was closed'
    : null;
/** A remote that cannot be reached or answers HTTP errors (a JSON-RPC error answer is not one). */
export const isTransportFailure = (error: unknown): boolean =>
  error instanceof StreamableHTTPError || (error instanceof TypeError && /fetch/i.test(error.message));
