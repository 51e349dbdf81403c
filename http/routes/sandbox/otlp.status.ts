/**
 * OTLP/HTTP's answers: a refusal's body is a `google.rpc.Status` (protobuf for a protobuf request, else
 * JSON `{code, message, details}`), a success the signal's Export*ServiceResponse, both in the request's
 * encoding. The HTTP status decides whether an exporter retries (429, 502, 503, 504, with `Retry-After`);
 * the Status says why, for its log. The node's error code leads the message, so the reason stays greppable.
 */
import type { ApiReply } from '../../reply.js';
import { encodeStatus } from './otlp.proto.js';

export type OtlpMedia = 'json' | 'proto';

/** The OTLP encoding a Content-Type names, or null for one OTLP/HTTP has not (answered 415). */
export const mediaOf = (contentType: string | undefined): OtlpMedia | null => {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === 'application/json') return 'json';
  if (media === 'application/x-protobuf' || media === 'application/protobuf') return 'proto';
  return null;
};

/** The response's Content-Type: the protobuf name the request used, or JSON. */
const typeOf = (contentType: string | undefined): string =>
  mediaOf(contentType) === 'proto'
    ? (contentType ?? '').split(';')[0]!.trim().toLowerCase()
    : 'application/json';

/** google.rpc.Code for an HTTP status, as the gRPC/HTTP mapping pairs them (the 4xx left over: INVALID_ARGUMENT). */
function grpcCodeOf(status: number): number {
  const codes: Readonly<Record<number, number>> = {
    401: 16, // UNAUTHENTICATED
    403: 7, // PERMISSION_DENIED
    404: 5, // NOT_FOUND
    408: 4, // DEADLINE_EXCEEDED
    409: 10, // ABORTED
    429: 8, // RESOURCE_EXHAUSTED
    501: 12, // UNIMPLEMENTED
    502: 14, // UNAVAILABLE
    503: 14, // UNAVAILABLE
    504: 4, // DEADLINE_EXCEEDED
  };
  return codes[status] ?? (status < 500 ? 3 /* INVALID_ARGUMENT */ : 13); /* INTERNAL */
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The gateway's or the route's refusal (`{error?, detail, hint}`) as a Status; status and headers kept. */
export function otlpRefusal(reply: ApiReply, headers: Readonly<Record<string, string>>): ApiReply {
  const body = (typeof reply.body === 'object' && reply.body !== null ? reply.body : {}) as Record<
    string,
    unknown
  >;
  const said = [text(body['detail']), text(body['hint'])].filter((s) => s !== '').join(' ');
  const message = body['error'] === undefined ? said : `${text(body['error'])}: ${said}`;
  const code = grpcCodeOf(reply.status);
  const type = typeOf(headers['content-type']);
  return {
    ...reply,
    headers: { ...reply.headers, 'content-type': type },
    body: type === 'application/json' ? { code, message, details: [] } : encodeStatus(code, message),
  };
}

/** Full success: the empty Export*ServiceResponse (no `partial_success`: an export is taken whole or refused). */
export function otlpSuccess(contentType: string | undefined): ApiReply {
  const type = typeOf(contentType);
  return type === 'application/json'
    ? { status: 200, body: {} }
    : { status: 200, headers: { 'content-type': type }, body: Buffer.alloc(0) };
}
