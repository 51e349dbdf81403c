/**
 * What the `run_sandbox` and `answer_sandbox` tools reach: the builtin tools are built before the node has
 * replayed the run records, so they hold this relay and the wiring binds it once the supervisor runs.
 * Unbound (a node without the seats role, or before start), the tools answer with an error.
 */
import { sendCommand, type Bus } from '../../bus/index.js';
import { Commands, type SandboxAnswerReply, type SandboxRunRecord } from '../../schema/index.js';
import type { SandboxSupervisor, LaunchRun } from './sandbox.host.js';
import type { SandboxRecords } from './sandbox.records.js';
import type { SeatSandbox } from './sandbox.settings.js';

export interface SandboxDesk {
  /** The seat's sandbox, or null when it has none (then `run_sandbox` is not offered). */
  settingsFor(seat: string): SeatSandbox | null;
  launch(run: LaunchRun): Promise<SandboxRunRecord>;
  /** Answers through the node that watches the run. */
  answer(sandboxId: string, seat: string, answer: string): Promise<SandboxAnswerReply>;
  settle(sandboxId: string, signal?: AbortSignal): Promise<SandboxRunRecord | null>;
  get(sandboxId: string): SandboxRunRecord | undefined;
}

export interface SandboxDeskRelay extends SandboxDesk {
  bind(parts: { bus: Bus; records: SandboxRecords; supervisor: SandboxSupervisor }): void;
}

export function createSandboxDesk(settingsFor: (seat: string) => SeatSandbox | null): SandboxDeskRelay {
  let bound: { bus: Bus; records: SandboxRecords; supervisor: SandboxSupervisor } | null = null;
  const need = (): { bus: Bus; records: SandboxRecords; supervisor: SandboxSupervisor } => {
    if (bound === null) throw new Error('coding sandboxes are not available on this node');
    return bound;
  };
  return {
    bind(parts) {
      bound = parts;
    },
    settingsFor,
    launch: (run) => need().supervisor.launch(run),
    async answer(sandboxId, seat, answer) {
      const { bus, records } = need();
      const run = records.get(sandboxId);
      if (!run) return { ok: false, error: 'unknown_run', message: `no coding run ${sandboxId}` };
      return sendCommand(bus, Commands.sandbox.answerAt(run.node), { sandbox_id: sandboxId, seat, answer });
    },
    settle: (sandboxId, signal) => need().supervisor.settle(sandboxId, signal),
    get: (sandboxId) => bound?.records.get(sandboxId),
  };
}
