/** Detached coding runs: the run lifecycle, the backends that run them, and the supervisor. */
export { stepRun, type RunEvent } from './sandbox.machine.js';
export { localBackend } from './local.backend.js';
export {
  bootstrapHide,
  bubblewrapIsolation,
  probeIsolation,
  processIsolation,
  type Isolation,
} from './isolation.js';
export { isLive, listedRun, openSandboxRecords, type SandboxRecords } from './sandbox.records.js';
export { startSandboxSupervisor } from './sandbox.host.js';
export type { SandboxSupervisor } from './sandbox.host.types.js';
export { createSandboxDesk, type SandboxDesk, type SandboxDeskRelay } from './sandbox.desk.js';
export { seatSandbox } from './sandbox.settings.js';
export { otlpForwarder } from './otlp.forward.js';
