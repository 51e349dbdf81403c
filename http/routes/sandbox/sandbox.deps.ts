/** What the `/otlp/{token}` and `/mcp/{token}` routes need of the sandbox supervisor (wired in scripts/). */
import type { ToolEntry, ToolResult } from '../../../schema/index.js';

export type OtlpSignal = 'traces' | 'metrics' | 'logs';

/** The run a path token belongs to, as these routes need it. */
export interface TokenRun {
  readonly sandbox_id: string;
  readonly agent_handle: string;
  readonly agent_id: string;
  readonly turn_id: string;
  readonly trace_id: string;
  readonly span_id: string;
  /** False once the run is done or failed: its token is refused from then on. */
  readonly live: boolean;
}

export interface SandboxTokenDeps {
  /** The run of this token, or null (compared in fixed length, constant time). */
  runOf(token: string): TokenRun | null;
}

/** The forwarder's decision on one export. */
export type ForwardAdmission =
  | { readonly taken: true }
  | { readonly taken: false; readonly why: 'behind' | 'unreachable'; readonly retryAfterSeconds: number };

export interface OtlpDeps extends SandboxTokenDeps {
  /** Counts the export on the run. */
  received(run: TokenRun, signal: OtlpSignal, spans: number): void;
  /**
   * Takes the export to send on upstream (per `OTEL_EXPORTER_OTLP_*`; never awaited by the agent), or
   * refuses it at once while the collector is behind or unreachable (answered 503 + Retry-After).
   */
  forward(signal: OtlpSignal, contentType: string, body: Buffer): ForwardAdmission;
}

export interface McpBridgeDeps extends SandboxTokenDeps {
  /** The running seat's tools as offered to its run. */
  tools(run: TokenRun): ToolEntry[];
  call(run: TokenRun, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

/** A run's path token: 32 random bytes, base64url (43 characters). */
export const pathToken = /^[A-Za-z0-9_-]{43}$/;
