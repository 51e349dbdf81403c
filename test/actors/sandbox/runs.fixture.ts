/** A coding run's record for the sandbox tests: a running run of Bob's on node-0, fields overridden. */
import type { SandboxRunRecord } from '../../../schema/index.js';

export function aRun(
  over: Partial<SandboxRunRecord> & Pick<SandboxRunRecord, 'sandbox_id'>,
): SandboxRunRecord {
  const at = over.updated_at ?? new Date().toISOString();
  return {
    turn_id: 'turn-1',
    role: 'Bob',
    agent_handle: 'bob',
    agent_id: 'agent-bob',
    coding_agent: 'fake',
    task: 'work',
    status: 'running',
    started_at: at,
    question: null,
    audience: null,
    work_item: null,
    owner: 'bob',
    paused_at: null,
    node: 'node-0',
    trace_id: 'a'.repeat(32),
    span_id: 'b'.repeat(16),
    token_sha256: 'c'.repeat(64),
    workdir: '/nowhere',
    pid: null,
    answer: null,
    telemetry: { traces: 0, metrics: 0, logs: 0, spans: 0 },
    updated_at: at,
    owed: null,
    ...over,
  };
}
