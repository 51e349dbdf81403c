/**
 * One small HTTP call to a vendor. The answer is reduced to a status and parsed JSON; a refusal is
 * described in our words only (a vendor's body never reaches an error, a log line or a run record).
 */
import { emptyHost } from '../../../schema/index.js';

export class VendorError extends Error {
  override name = 'VendorError';
}

/**
 * The most of a vendor's answer read into memory by default. The largest answer a pass reads is one list
 * page (projects, members, hooks), far below this; a larger one is refused rather than held.
 */
export const VENDOR_BODY_MAX_BYTES = 1024 * 1024;

export interface VendorAnswer {
  readonly status: number;
  readonly json: unknown;
}

export interface VendorCall {
  readonly method?: 'GET' | 'POST' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Statuses that are answers rather than failures (404 when looking something up). */
  readonly accept?: readonly number[];
  /** The most of the answer read; default VENDOR_BODY_MAX_BYTES. */
  readonly maxBytes?: number;
}

function why(status: number): string {
  if (status === 401 || status === 403) return `answered ${status}: the credential was refused`;
  if (status === 404) return 'answered 404: not found (check the base URL and names)';
  if (status === 429) return 'answered 429: rate limited, try again later';
  if (status >= 500) return `answered ${status}: the vendor failed`;
  return `answered ${status}`;
}

function unreachable(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  if (error instanceof Error && error.name === 'TimeoutError') return 'did not answer in time';
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'is unreachable (connection refused)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'is unreachable (host name not resolved)';
    case 'ECONNRESET':
      return 'closed the connection';
    default:
      return 'is unreachable';
  }
}

export async function vendorCall(
  product: string,
  url: string,
  call: VendorCall,
  timeoutMs: number,
): Promise<VendorAnswer> {
  const { pathname } = new URL(url);
  const what = `${product} ${call.method ?? 'GET'} ${pathname}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: call.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...call.headers,
      },
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
  } catch (error) {
    throw new VendorError(`${what}: ${product} ${unreachable(error)}`, { cause: error });
  }
  if ((res.status < 200 || res.status >= 300) && !(call.accept ?? []).includes(res.status)) {
    // A refusal's body is never read: our words say why.
    await res.body?.cancel().catch(() => undefined);
    throw new VendorError(`${what}: ${product} ${why(res.status)}`);
  }
  const text = await bodyText(res, `${what}: ${product}`, call.maxBytes ?? VENDOR_BODY_MAX_BYTES);
  let json: unknown = null;
  if (text !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      throw new VendorError(`${what}: ${product} answered something other than JSON`);
    }
  }
  return { status: res.status, json };
}

const sizeOf = (bytes: number): string =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;

/**
 * The answer's body as text, read up to `max` bytes: past it (declared or streamed) the rest is not read
 * and the connection is let go. A body cut short otherwise (the deadline) reads as empty.
 */
async function bodyText(res: Response, what: string, max: number): Promise<string> {
  const tooLarge = () => new VendorError(`${what} answered more than ${sizeOf(max)}`);
  const declared = Number(res.headers.get('content-length') ?? '');
  if (res.body === null) return '';
  if (declared > max) {
    await res.body.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof VendorError) throw error;
    return '';
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A base URL without its trailing slash; a missing or non-http one fails the pass, as does one with no host
 * (`http:///api`, what `http://${HOST}/api` becomes with HOST unset), which `new URL` reads as host `api`.
 */
export function baseUrl(product: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new VendorError(`${product}: the base URL is not set`);
  try {
    if (emptyHost(value)) throw new Error('no host');
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new VendorError(`${product}: the base URL is not an http(s) URL`);
  }
  return value.trim().replace(/\/+$/, '');
}

export function credential(product: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new VendorError(`${product}: ${field} is not set or resolves empty`);
  return value;
}
