/** Detached coding runs: the durable record, the control files a coding agent writes, the answer command. */
export {
  SandboxAnswerReply,
  SandboxAnswerRequest,
  SandboxCancelBody,
  SandboxCancelReply,
  SandboxCancelRequest,
  SandboxOwed,
  SandboxQuestion,
  SandboxResult,
  SandboxRunRecord,
  SandboxTelemetry,
} from './run.js';
