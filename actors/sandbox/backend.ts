/**
 * What runs a coding agent: a backend launches it detached in a fresh working directory, reports what it
 * observed (a question, a result, whether it still runs), delivers answers and stops it. The supervisor
 * (sandbox.host.ts) holds the run's record; a backend holds nothing it could not find again from the
 * record's `workdir` and `pid`, so a restarted node picks its runs up where they are.
 */
import type { SandboxResult } from '../../schema/index.js';

export interface SandboxSettings {
  /** Shell steps run in the working directory, in order, before the agent starts. */
  readonly setup: readonly string[];
  /** The run's environment (the seat's `sandbox.env`, references resolved). */
  readonly env: Readonly<Record<string, string>>;
  /** The coding agent's command line (the seat's `default_coding_agent`). */
  readonly command: string;
}

export interface LaunchRequest {
  readonly sandbox_id: string;
  readonly task: string;
  readonly settings: SandboxSettings;
  /** The supervisor's own variables (control dir aside): token URLs, `TRACEPARENT`. */
  readonly env: Readonly<Record<string, string>>;
  /** Aborted when the run is cancelled while launching: the setup step running is stopped, the agent not started. */
  readonly signal?: AbortSignal;
}

export interface Launched {
  readonly workdir: string;
  readonly pid: number | null;
}

export interface Observation {
  /** A question the agent asked and nobody has answered yet. */
  readonly question: { readonly question: string; readonly audience: string | null } | null;
  /** The agent's own account of its end. */
  readonly result: SandboxResult | null;
  /** Set once the agent is gone without a result: why. */
  readonly gone: string | null;
}

export interface SandboxBackend {
  readonly kind: string;
  /**
   * Prepares the directory (setup steps) and starts the agent; throws with the reason when it cannot, or
   * when `signal` aborts before the agent started.
   */
  launch(request: LaunchRequest): Promise<Launched>;
  observe(run: Launched): Promise<Observation>;
  /** Delivers the answer to the open question. */
  answer(run: Launched, answer: string, at: string): Promise<void>;
  /**
   * Ends the agent's process group (when the run is cancelled, or seen ended while something of it still
   * runs): resolves once it is told to end; what outlasts the grace is killed without the caller waiting.
   */
  stop(run: Launched): Promise<void>;
  /**
   * Ends whatever of runs `sandboxIds` still runs though nothing holds it: a launch cut by the node's death
   * (kill -9) leaves its setup step, or an agent started just before the run's record was stored; an ended
   * run, what ignored a stop's SIGTERM when the node died before the SIGKILL owed after the grace.
   */
  stopLeft(sandboxIds: readonly string[]): Promise<void>;
}
