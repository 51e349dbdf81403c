/**
 * What a failed start says when the server never finished the MCP handshake: the SDK's own words are a
 * timeout code (`MCP error -32001: TimeoutError: ...`), and a server that prints log lines or banners on
 * stdout (where only MCP messages may go) fails the same way with nothing else to show for it.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The lines of one attempt's stdout that were no MCP message: how many, the first and the last. */
export class StdoutNoise {
  private attempt = 0;
  private count = 0;
  private firstIsJson = false;
  private lastIsJson = false;

  /** A transport error of `attempt`; only a line that is not JSON or not JSON-RPC counts. */
  note(attempt: number, error: unknown): boolean {
    const notMessage = error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError');
    if (!notMessage) return false;
    if (attempt !== this.attempt) {
      this.attempt = attempt;
      this.count = 0;
      this.firstIsJson = false;
    }
    this.count += 1;
    // The line itself is not quoted, not even the few characters JSON.parse's message holds: they could be
    // the start of a secret, which scrubbing only recognises whole.
    this.lastIsJson = !(error instanceof SyntaxError);
    if (this.count === 1) this.firstIsJson = this.lastIsJson;
    return true;
  }

  /** How many lines of `attempt` so far were no MCP message (a call notes it when sent). */
  seen(attempt: number): number {
    return attempt === this.attempt ? this.count : 0;
  }

  /**
   * A call's timeout in words. A malformed answer (JSON-RPC the MCP schema refuses, or no JSON) is dropped by
   * the SDK, so such a call waits out its timeout like an unanswered one: the lines are named, not quoted.
   */
  callTimeout(attempt: number, seenBefore: number, callTimeoutMs: number): string {
    const said = `the tool server did not answer within ${callTimeoutMs / 1000} s`;
    const since = this.seen(attempt) - seenBefore;
    if (since <= 0) return said;
    const kind = (json: boolean): string => (json ? 'JSON but no JSON-RPC message' : 'not JSON');
    const lines =
      since === 1
        ? '1 line on stdout that is not an MCP message'
        : `${since} lines on stdout that are not MCP messages`;
    const which = since === 1 ? kind(this.lastIsJson) : `the last is ${kind(this.lastIsJson)}`;
    return `${said}; it wrote ${lines} since the call was sent (${which})`;
  }

  /** `error` as a start failure's text (unscrubbed), when it is the start deadline passing; else null. */
  startFailure(attempt: number, error: unknown, startTimeoutMs: number): string | null {
    const timedOut =
      (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) ||
      (error instanceof Error && error.name === 'TimeoutError');
    if (!timedOut) return null;
    const said = `the tool server did not complete the MCP handshake within ${startTimeoutMs / 1000} s`;
    if (attempt !== this.attempt || this.count === 0) return said;
    const lines = this.count === 1 ? '1 line' : `${this.count} lines`;
    const first = this.firstIsJson ? 'JSON but no JSON-RPC message' : 'not JSON';
    return `${said}; it wrote ${lines} on stdout that are not MCP messages (the first is ${first}; a server's own output belongs on stderr)`;
  }
}
