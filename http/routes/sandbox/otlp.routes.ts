/**
 * `POST /otlp/{token}/v1/{traces|metrics|logs}`: the telemetry receiver of sandboxed coding runs. Never
 * behind the bearer guard: the per-run token in the path is the credential, refused (401 `invalid_token`,
 * the same answer for a token never issued and one whose run has ended) before the body is read. Standard
 * OTLP/HTTP in protobuf or JSON, plain or gzip; the export is counted on its run and forwarded upstream
 * (inflated), the upstream's headers staying on this side. The run's spans join its trace: the agent was
 * given it as `TRACEPARENT`.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { z } from 'zod';
import { cutForQuote } from '../../../schema/index.js';
import { ApiError, wholeBodyProblem } from '../../api-error.js';
import type { ApiReply } from '../../reply.js';
import type { RouteDef } from '../../types.js';
import { checkProto, countProtoSpans } from './otlp.proto.js';
import { pathToken, type OtlpDeps, type OtlpSignal, type TokenRun } from './sandbox.deps.js';

const signals: readonly OtlpSignal[] = ['traces', 'metrics', 'logs'];
const maxBodyBytes = 16 * 1024 * 1024;

const JsonTraces = z.looseObject({
  resourceSpans: z
    .array(
      z.looseObject({
        scopeSpans: z.array(z.looseObject({ spans: z.array(z.unknown()).default([]) })).default([]),
      }),
    )
    .default([]),
});
const JsonExport = z.looseObject({});

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

const mediaOf = (contentType: string | undefined): 'json' | 'proto' | null => {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === 'application/json') return 'json';
  if (media === 'application/x-protobuf' || media === 'application/protobuf') return 'proto';
  return null;
};

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

function spansIn(signal: OtlpSignal, media: 'json' | 'proto', body: Buffer): number {
  if (media === 'proto') {
    try {
      if (signal === 'traces') return countProtoSpans(body);
      checkProto(body);
      return 0;
    } catch {
      throw invalid('The body is not an OTLP protobuf export.');
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalid('The body is not JSON.');
  }
  if (signal !== 'traces') {
    if (!JsonExport.safeParse(json).success) throw invalid('The body is not an OTLP JSON export.');
    return 0;
  }
  const parsed = JsonTraces.safeParse(json);
  if (!parsed.success) throw invalid('The body is not an OTLP JSON trace export.');
  return parsed.data.resourceSpans.reduce(
    (n, r) => n + r.scopeSpans.reduce((m, s) => m + s.spans.length, 0),
    0,
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
      beforeBody(req) {
        if (!(signals as readonly string[]).includes(req.params['signal'] ?? ''))
          throw new ApiError('no_route', {
            detail: `POST /otlp/[token]/v1/${cutForQuote(req.params['signal'] ?? '')} is not served`,
          });
        liveRunOf(deps, req.params['token']);
        if (mediaOf(req.headers['content-type']) === null)
          throw invalid('OTLP/HTTP is application/x-protobuf or application/json.');
        if (encodingOf(req.headers['content-encoding']) === null)
          throw invalid('OTLP/HTTP is sent as is or with Content-Encoding: gzip.');
      },
      async handler(req): Promise<ApiReply> {
        const run = liveRunOf(deps, req.params['token']);
        const signal = req.params['signal'] as OtlpSignal;
        const media = mediaOf(req.headers['content-type'])!;
        const body = await exportOf(req);
        const spans = spansIn(signal, media, body);
        deps.received(run, signal, spans);
        deps.forward(signal, media === 'json' ? 'application/json' : 'application/x-protobuf', body);
        // An empty Export*ServiceResponse: full success.
        return media === 'json'
          ? { status: 200, body: {} }
          : { status: 200, headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.alloc(0) };
      },
    },
  ];
}
