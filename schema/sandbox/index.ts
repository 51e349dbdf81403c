/** Detached coding runs: the durable record, the control files a coding agent writes, the answer command. */
export {
  SandboxAnswer,
  SandboxAnswerReply,
  SandboxAnswerRequest,
  SandboxQuestion,
  SandboxResult,
  SandboxRunRecord,
  SandboxTelemetry,
  TokenDigest,
} from './run.js';
