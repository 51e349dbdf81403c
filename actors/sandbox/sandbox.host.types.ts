/** The sandbox supervisor's surface and options (sandbox.host.ts): what a launch names, what the node asks. */
import type { Bus } from '../../bus/index.js';
import type { Logger } from 'pino';
import type { SandboxAnswerReply, SandboxCancelReply, SandboxRunRecord } from '../../schema/index.js';
import type { SandboxBackend, SandboxSettings } from './backend.js';
import type { SandboxRecords } from './sandbox.records.js';

export interface LaunchRun {
  readonly sandbox_id: string;
  readonly seat: string;
  readonly role: string;
  readonly agent_id: string;
  readonly turn_id: string;
  readonly trace_id: string;
  /** The launching tool call's span, when the node exports spans: the run's spans nest under it. */
  readonly parent_span_id?: string | null;
  readonly task: string;
  readonly work_item: string | null;
  readonly coding_agent: string;
  readonly settings: SandboxSettings;
}

export interface SandboxSupervisor {
  /** Launches the run (once per id: a repeat returns the run as it stands). */
  launch(run: LaunchRun): Promise<SandboxRunRecord>;
  answer(sandboxId: string, seat: string, answer: string): Promise<SandboxAnswerReply>;
  /**
   * Stops a live run watched here: its process tree is sent SIGTERM (SIGKILL after the backend's grace),
   * then it is recorded `cancelled` (which releases a turn waiting on it). A run cancelled already answers
   * as it stands (`changed: false`).
   */
  cancel(sandboxId: string, by: string, reason: string): Promise<SandboxCancelReply>;
  /** Resolves with the run once it asks, ends, or `signal` fires (then with the run as it stands). */
  settle(sandboxId: string, signal?: AbortSignal): Promise<SandboxRunRecord | null>;
  /** How many runs have a move queued or under way here (a run with none holds no state for it). */
  queued(): number;
  /** Counts one OTLP export on a live run (stored with its next record, or within `telemetryEveryMs`). */
  telemetry(run: SandboxRunRecord, signal: 'traces' | 'metrics' | 'logs', spans: number): void;
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  readonly bus: Bus;
  readonly node: string;
  readonly records: SandboxRecords;
  readonly backend: SandboxBackend;
  readonly logger: Logger;
  /** Base URLs the agent is given (`<url>/otlp/<token>`, `<url>/mcp/<token>`); null: not offered. */
  readonly otlpUrl: string | null;
  readonly mcpUrl: string | null;
  readonly pollMs?: number;
  /** The seat's sandbox secrets (sandbox.settings.ts), scrubbed from a run's question, summary and error. */
  readonly secretsOf?: (seat: string) => readonly string[];
  /** How long a run's export counts may wait for its next record before one is written for them. */
  readonly telemetryEveryMs?: number;
  /**
   * The nodes in the fleet (live presence records), or null while unknown. Another node's live run is
   * taken as lost only when its node is not on it (sandbox.lost.ts). Default: unknown, so none is.
   */
  readonly roster?: () => Promise<readonly string[] | null>;
  /**
   * Whether the company document this node applied gives `seat` a sandbox (null while it holds none). With
   * it, each document this node applies ends its live runs of seats it gives none (sandbox.withdraw.ts).
   */
  readonly hasSandbox?: (seat: string) => boolean | null;
  readonly now?: () => Date;
}
