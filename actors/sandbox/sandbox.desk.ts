/**
 * What the `run_sandbox` and `answer_sandbox` tools reach: the builtin tools are built before the node has
 * replayed the run records, so they hold this relay and the wiring binds it once the supervisor runs.
 * Until then (a turn resumed while the node starts) a call waits; only seats nodes run turns, and they bind it.
 */
import { sendCommand, type Bus } from '../../bus/index.js';
import {
  Commands,
  type SandboxAnswerReply,
  type SandboxCancelReply,
  type SandboxRunRecord,
} from '../../schema/index.js';
import type { SandboxSupervisor, LaunchRun } from './sandbox.host.types.js';
import type { SandboxRecords } from './sandbox.records.js';
import type { SeatSandbox } from './sandbox.settings.js';

export interface SandboxDesk {
  /** The seat's sandbox, or null when it has none (then `run_sandbox` is not offered). */
  settingsFor(seat: string): SeatSandbox | null;
  /** Whether the applied document gives `seat` a sandbox; null while no document is applied. */
  hasSandbox(seat: string): boolean | null;
  launch(run: LaunchRun): Promise<SandboxRunRecord>;
  /** Answers through the node that watches the run. */
  answer(sandboxId: string, seat: string, answer: string): Promise<SandboxAnswerReply>;
  settle(sandboxId: string, signal?: AbortSignal): Promise<SandboxRunRecord | null>;
  /** Cancels through the node that watches the run (`by`: the seat). */
  cancel(sandboxId: string, by: string, reason: string): Promise<SandboxCancelReply>;
  get(sandboxId: string): SandboxRunRecord | undefined;
}

export interface SandboxDeskRelay extends SandboxDesk {
  bind(parts: { bus: Bus; records: SandboxRecords; supervisor: SandboxSupervisor }): void;
}

export function createSandboxDesk(
  settingsFor: (seat: string) => SeatSandbox | null,
  /** Whether a company document is applied (until then no seat is judged to have lost its sandbox). */
  applied: () => boolean = () => true,
): SandboxDeskRelay {
  type Parts = { bus: Bus; records: SandboxRecords; supervisor: SandboxSupervisor };
  let bound: Parts | null = null;
  let bindNow: (parts: Parts) => void = () => undefined;
  // A turn resumed while the node starts may call before the supervisor is bound: it waits for it.
  const ready = new Promise<Parts>((resolve) => {
    bindNow = resolve;
  });
  return {
    bind(parts) {
      bound = parts;
      bindNow(parts);
    },
    settingsFor,
    hasSandbox: (seat) => (applied() ? settingsFor(seat) !== null : null),
    launch: async (run) => (await ready).supervisor.launch(run),
    async answer(sandboxId, seat, answer) {
      const { bus, records } = await ready;
      const run = records.get(sandboxId);
      if (!run) return { ok: false, error: 'unknown_run', message: `no coding run ${sandboxId}` };
      return sendCommand(bus, Commands.sandbox.answerAt(run.node), { sandbox_id: sandboxId, seat, answer });
    },
    async cancel(sandboxId, by, reason) {
      const { bus, records } = await ready;
      const run = records.get(sandboxId);
      if (!run) return { ok: false, error: 'unknown_run', message: `no coding run ${sandboxId}` };
      return sendCommand(bus, Commands.sandbox.cancelAt(run.node), { sandbox_id: sandboxId, by, reason });
    },
    settle: async (sandboxId, signal) => (await ready).supervisor.settle(sandboxId, signal),
    get: (sandboxId) => bound?.records.get(sandboxId),
  };
}
