/**
 * `POST /otlp/{token}/v1/{traces|metrics|logs}`: the telemetry receiver of sandboxed coding runs. Never
 * behind the bearer guard: the per-run token in the path is the credential, refused (401 `invalid_token`,
 * the same answer for a token never issued and one whose run has ended) before the body is read. Standard
 * OTLP/HTTP in protobuf or JSON, plain or gzip, answered as OTLP/HTTP answers (otlp.status.ts); the export
 * is forwarded upstream (inflated), the upstream's headers staying on this side, and counted on its run —
 * or, while the collector is behind or unreachable, refused 503 + Retry-After so the exporter retries it.
 * The run's spans join its trace: the agent was given it as `TRACEPARENT`.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { z } from 'zod';
import { cutForQuote } from '../../../schema/index.js';
import { ApiError, codelessReply, wholeBodyProblem } from '../../api-error.js';
import type { ApiReply } from '../../reply.js';
import type { RouteDef } from '../../types.js';
import { countProtoItems } from './otlp.proto.js';
import { mediaOf, otlpRefusal, otlpSuccess, type OtlpMedia } from './otlp.status.js';
import { pathToken, type OtlpDeps, type OtlpSignal, type TokenRun } from './sandbox.deps.js';

const signals: readonly OtlpSignal[] = ['traces', 'metrics', 'logs'];
const maxBodyBytes = 16 * 1024 * 1024;

/** A level: an object whose `key`, when present, is an array of `inner`. */
const level = <T extends z.ZodType>(key: string, inner: T) =>
  z.looseObject({}).transform((o, ctx): z.output<T>[] => {
    const parsed = z.array(inner).optional().safeParse(o[key]);
    if (parsed.success) return parsed.data ?? [];
    ctx.addIssue({ code: 'custom', path: [key], message: `${key} is not an array of objects` });
    return z.NEVER;
  });

/** A JSON export (resource → scope → item, protobuf's fields 1 → 2 → 2) read to its items, counted. */
const jsonExport = (resources: string, scopes: string, items: string) =>
  level(resources, level(scopes, level(items, z.unknown()))).transform((rs) =>
    rs.reduce((n, r) => n + r.reduce((m, s) => m + s.length, 0), 0),
  );
const jsonExports = {
  traces: jsonExport('resourceSpans', 'scopeSpans', 'spans'),
  metrics: jsonExport('resourceMetrics', 'scopeMetrics', 'metrics'),
  logs: jsonExport('resourceLogs', 'scopeLogs', 'logRecords'),
} satisfies Record<OtlpSignal, unknown>;

/** The run of a path token, or the refusal (unknown and ended runs answer alike). */
export function liveRunOf(deps: OtlpDeps | Pick<OtlpDeps, 'runOf'>, token: string | undefined): TokenRun {
  const run = token !== undefined && pathToken.test(token) ? deps.runOf(token) : null;
  if (run === null || !run.live)
    throw new ApiError('invalid_token', {
      detail: 'The path token names no running coding run.',
      hint: 'Use the endpoint the run was given; it stops being accepted when the run ends.',
    });
  return run;
}

const inflate = promisify(gunzip);

/** OTLP/HTTP lets a client gzip its export (`Content-Encoding: gzip`); nothing else is taken. */
const encodingOf = (header: string | undefined): 'gzip' | 'none' | null => {
  const encoding = (header ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return 'none';
  return encoding === 'gzip' ? 'gzip' : null;
};

/** The export as sent: inflated when gzip, never past the route's own limit (a small bomb stays small). */
async function exportOf(req: { headers: Record<string, string>; body: Buffer }): Promise<Buffer> {
  if (encodingOf(req.headers['content-encoding']) !== 'gzip') return req.body;
  try {
    return await inflate(req.body, { maxOutputLength: maxBodyBytes });
  } catch {
    throw invalid(`The body is not gzip, or it inflates past ${maxBodyBytes} bytes.`);
  }
}

const invalid = (detail: string): ApiError =>
  new ApiError('invalid_body', {
    detail,
    hint: 'Send an OTLP/HTTP export, protobuf or JSON encoded.',
    extra: { problems: wholeBodyProblem(detail) },
  });

/** The spans, metrics or log records of an export, each read to its items (their contents are forwarded). */
function itemsIn(signal: OtlpSignal, media: OtlpMedia, body: Buffer): number {
  if (media === 'proto') {
    try {
      return countProtoItems(body);
    } catch {
      throw invalid(`The body is not an OTLP protobuf ${signal} export.`);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalid('The body is not JSON.');
  }
  const parsed = jsonExports[signal].safeParse(json);
  if (!parsed.success) throw invalid(`The body is not an OTLP JSON ${signal} export.`);
  return parsed.data;
}

/** OTLP/HTTP: a Content-Type it has not is 415; so is a content coding not taken (RFC 9110 15.5.16). */
const unsupported = (detail: string, hint: string, headers?: Record<string, string>): ApiReply =>
  codelessReply(415, detail, hint, headers);

/**
 * OTLP/HTTP's "retry later": an export the forwarder would not send on is refused, never answered 200 and
 * dropped, and not counted on the run (its retry will be).
 */
function collectorUnavailable(why: 'behind' | 'unreachable', retryAfterSeconds: number): ApiReply {
  return codelessReply(
    503,
    why === 'behind'
      ? 'The collector this node forwards telemetry to is behind; this export was not taken.'
      : 'The collector this node forwards telemetry to did not answer its last export; this export was not taken.',
    `Retry after ${retryAfterSeconds} seconds (an OTLP exporter does so itself).`,
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

export function otlpRoutes(deps: OtlpDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/otlp/:token/v1/:signal',
      serves: (params) => (signals as readonly string[]).includes(params['signal'] ?? ''),
      access: 'open',
      maxBodyBytes,
      refusalIn: otlpRefusal,
      beforeBody(req) {
        if (!(signals as readonly string[]).includes(req.params['signal'] ?? ''))
          throw new ApiError('no_route', {
            detail: `POST /otlp/[token]/v1/${cutForQuote(req.params['signal'] ?? '')} is not served`,
          });
        liveRunOf(deps, req.params['token']);
        if (mediaOf(req.headers['content-type']) === null)
          return unsupported(
            'OTLP/HTTP is application/x-protobuf or application/json.',
            'Export with the http/protobuf or http/json protocol.',
          );
        if (encodingOf(req.headers['content-encoding']) === null)
          return unsupported(
            'OTLP/HTTP is sent as is or with Content-Encoding: gzip.',
            'Export uncompressed or with gzip compression.',
            { 'Accept-Encoding': 'gzip' },
          );
        return undefined;
      },
      async handler(req): Promise<ApiReply> {
        const run = liveRunOf(deps, req.params['token']);
        const signal = req.params['signal'] as OtlpSignal;
        const media = mediaOf(req.headers['content-type'])!;
        const body = await exportOf(req);
        const items = itemsIn(signal, media, body);
        const type = media === 'json' ? 'application/json' : 'application/x-protobuf';
        const admission = deps.forward(signal, type, body);
        // A handler's returned refusal is not shaped by the gateway (only its throws are): shaped here.
        if (!admission.taken)
          return otlpRefusal(collectorUnavailable(admission.why, admission.retryAfterSeconds), req.headers);
        deps.received(run, signal, signal === 'traces' ? items : 0);
        return otlpSuccess(req.headers['content-type']);
      },
    },
  ];
}
