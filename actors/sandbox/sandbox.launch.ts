/**
 * What a launch starts from (sandbox.host.ts): the run's first record, `launching` with no process yet,
 * and the environment the coding agent is given. The token the run authenticates with is drawn here and
 * kept only as its digest on the record; the agent learns it from its OTLP and tool-bridge URLs.
 */
import { randomBytes } from 'node:crypto';
import type { SandboxRunRecord } from '../../schema/index.js';
import type { LaunchRun } from './sandbox.host.types.js';
import { tokenDigest } from './sandbox.records.js';

export interface LaunchStart {
  /** The run as first recorded. */
  readonly record: SandboxRunRecord;
  /** What the agent's process gets on top of the backend's own environment. */
  readonly env: Record<string, string>;
}

/** Base URLs the agent is given (`<url>/otlp/<token>`, `<url>/mcp/<token>`); null: not offered. */
export interface LaunchUrls {
  readonly otlpUrl: string | null;
  readonly mcpUrl: string | null;
}

/** The first record and environment of `req`, launched on `node` at `at`. */
export function launchStart(req: LaunchRun, node: string, urls: LaunchUrls, at: string): LaunchStart {
  const token = randomBytes(32).toString('base64url');
  const parent = req.parent_span_id ?? '';
  // The launching tool call's span when it is one, so the run's spans nest under it.
  const spanId = /^[0-9a-f]{16}$/.test(parent) ? parent : randomBytes(8).toString('hex');
  const traceId = /^[0-9a-f]{32}$/.test(req.trace_id) ? req.trace_id : randomBytes(16).toString('hex');
  const record: SandboxRunRecord = {
    turn_id: req.turn_id,
    role: req.role,
    agent_handle: req.seat,
    agent_id: req.agent_id,
    coding_agent: req.coding_agent,
    sandbox_id: req.sandbox_id,
    task: req.task,
    status: 'launching',
    started_at: at,
    question: null,
    audience: null,
    work_item: req.work_item,
    owner: req.seat,
    paused_at: null,
    node,
    trace_id: traceId,
    span_id: spanId,
    token_sha256: tokenDigest(token),
    workdir: null,
    pid: null,
    answer: null,
    telemetry: { traces: 0, metrics: 0, logs: 0, spans: 0 },
    updated_at: at,
    owed: null,
  };
  const env: Record<string, string> = { TRACEPARENT: `00-${traceId}-${spanId}-01` };
  if (urls.otlpUrl !== null) {
    env['OTEL_EXPORTER_OTLP_ENDPOINT'] = `${urls.otlpUrl}/otlp/${token}`;
    env['OTEL_EXPORTER_OTLP_PROTOCOL'] = 'http/json';
  }
  if (urls.mcpUrl !== null) env['SVC_MCP_URL'] = `${urls.mcpUrl}/mcp/${token}`;
  return { record, env };
}
