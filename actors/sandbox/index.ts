/** Detached coding runs: the run lifecycle, the backends that run them, and the supervisor. */
export { sandboxRunMachine, snapshotOf, stepRun, type RunEvent, type RunStep } from './sandbox.machine.js';
export type { LaunchRequest, Launched, Observation, SandboxBackend, SandboxSettings } from './backend.js';
export { localBackend } from './local.backend.js';
export {
  isLive,
  openSandboxRecords,
  publicRun,
  tokenDigest,
  type SandboxRecords,
} from './sandbox.records.js';
export {
  startSandboxSupervisor,
  type LaunchRun,
  type SandboxSupervisor,
  type SupervisorOptions,
} from './sandbox.host.js';
export { createSandboxDesk, type SandboxDesk, type SandboxDeskRelay } from './sandbox.desk.js';
export { seatSandbox, type SeatSandbox } from './sandbox.settings.js';
export { otlpForwarder, parseOtlpHeaders, type OtlpForwarder } from './otlp.forward.js';
