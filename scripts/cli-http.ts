/** The request every `svc <verb>` client makes to a running node: bearer token from `SVC_TOKEN`, one clear line when unreachable. */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import { packageVersion } from './version.js';
import { withoutUserinfo } from '../schema/index.js';

/** The CLI names itself, so the node records its configuration writes with `source: cli`. */
export const cliUserAgent = (): string => `svc-cli/${packageVersion()}`;

export interface NodeTarget {
  readonly url: string;
  readonly token: string | undefined;
  readonly err: { write(text: string): unknown };
  /** How long to wait for the node's answer (`--timeout`, `$SVC_TIMEOUT`); absent: by the request (below). */
  readonly timeoutMs?: number | undefined;
}

/**
 * How long a request waits for the node when the user set no `--timeout`: a read 10 s (a node that is up
 * answers one in well under a second; a stopped or paused one never does), a write 60 s (a config write
 * waits for its activation, which a broker failover can hold up to about 10 s). A command that legitimately
 * waits longer (a backup) passes its own patience.
 */
export const readPatienceMs = 10_000;
export const writePatienceMs = 60_000;

/** The node's answer, or null after writing `svc <command>: cannot reach <url> (<cause>)` to `err`. */
export async function requestNode(
  command: string,
  target: NodeTarget,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
  opts: { readonly patienceMs?: number } = {},
): Promise<Response | null> {
  const origin = nodeOrigin(target.url);
  if (origin === null) {
    target.err.write(unusableNode(command));
    return null;
  }
  const read = method === 'GET' || method === 'HEAD';
  const patienceMs = target.timeoutMs ?? opts.patienceMs ?? (read ? readPatienceMs : writePatienceMs);
  try {
    const response = await send(
      new URL(target.url),
      path,
      method,
      body,
      {
        'user-agent': cliUserAgent(),
        ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
        ...headers,
      },
      patienceMs,
    );
    if (response.status === 401) target.err.write(tokenHint(command, target.token !== undefined));
    return response;
  } catch (error) {
    target.err.write(
      error instanceof NoAnswerError
        ? silent(command, origin, error.waitedMs, read)
        : unreachable(command, origin, error),
    );
    return null;
  }
}

/** The node accepted the request and said nothing for the whole patience. */
class NoAnswerError extends Error {
  constructor(readonly waitedMs: number) {
    super(`no answer in ${waitedMs / 1000} s`);
  }
}

/** `svc <command>: <origin> did not answer in N s`, what that may mean, and how to wait longer. */
function silent(command: string, origin: string, waitedMs: number, read: boolean): string {
  const longer = 'pass --timeout SECONDS or set SVC_TIMEOUT to wait longer';
  return withoutUserinfo(
    `svc ${command}: ${origin} did not answer in ${waitedMs / 1000} s (stopped, paused or overloaded?)` +
      (read ? `: ${longer}\n` : `; it may still have been done: read before repeating, and ${longer}\n`),
  );
}

/**
 * The node's origin, the only part of its address a message shows (never the userinfo of a `$SVC_URL` like
 * `http://user:password@host`); null when the address is not one to send to: not an http(s) or ws(s) URL,
 * or one where a `#`, `?` or `/` in the password ends the authority early (`http://u:a#b@host` parses as
 * host `u`, so the request, its errors and its origin would carry part of the password).
 */
export function nodeOrigin(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (!nodeSchemes.has(parsed.protocol)) return null;
    const origin = parsed.origin;
    if (origin !== 'null' && new URL(withoutUserinfo(url)).origin === origin) return origin;
  } catch {
    // not a URL
  }
  return null;
}

/** A node speaks http(s), and ws(s) for its live stream; `ftp://` or `nats://` is an address of something else. */
const nodeSchemes = new Set(['http:', 'https:', 'ws:', 'wss:']);

/**
 * `svc <command>: cannot reach <origin> (<cause>)` and what to check: the node is down, or the address is not
 * its API listener. Only the origin is quoted, and the cause loses any userinfo it echoes.
 */
export function unreachable(command: string, origin: string, error: unknown): string {
  const cause = error instanceof Error ? error.message : String(error);
  return withoutUserinfo(
    `svc ${command}: cannot reach ${origin} (${cause}): is the node running, and is this its api.host:api.port? Set --url or $SVC_URL to it\n`,
  );
}

/** Said instead of sending to an address `nodeOrigin` refuses (the address itself may be the secret). */
export const unusableNodeText =
  "--url / $SVC_URL is not an http(s) URL such as http://127.0.0.1:8080 (write a password's # ? / as %23 %3F %2F)";
export const unusableNode = (command: string): string => `svc ${command}: ${unusableNodeText}\n`;

/** Statuses whose answer has no body (a `Response` refuses one). */
const bodiless = new Set([204, 205, 304]);

/**
 * One request over node:http(s), answered as a `Response` once its head arrives (the body streams).
 * Not `fetch`: a CLI process would load undici and build its parser for one request, about 0.2 s of a
 * command's half second. `path` (with its query) goes out as written, after the node URL's own path: a URL
 * parser would resolve an id's `.` or `..` segment (even written `%2E`) and ask for another path.
 */
function send(
  node: URL,
  path: string,
  method: string,
  body: string | Buffer | undefined,
  headers: Record<string, string>,
  patienceMs: number,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = node.protocol === 'https:' ? httpsRequest : httpRequest;
    const prefix = node.pathname.replace(/\/+$/, '');
    const options = { ...urlToHttpOptions(node), path: `${prefix}${path}`, method, headers };
    const req = request(options, (res: IncomingMessage) => {
      const answerHeaders = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
        answerHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 599) {
        res.destroy();
        reject(new Error(`unexpected HTTP status ${status}`));
        return;
      }
      let stream: ReadableStream<Uint8Array> | null = null;
      if (bodiless.has(status)) res.resume();
      else stream = Readable.toWeb(res) as ReadableStream<Uint8Array>;
      resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: answerHeaders }));
    });
    // A node silent for the whole patience (no head, or a stalled body) is given up on.
    req.setTimeout(patienceMs, () => req.destroy(new NoAnswerError(patienceMs)));
    req.once('error', reject);
    req.end(body);
  });
}

/** What a 401 means from a terminal: the token comes from `SVC_TOKEN`, not from a header the user writes. */
export function tokenHint(command: string, tokenSet: boolean): string {
  return tokenSet
    ? `svc ${command}: the node refused the token in SVC_TOKEN: set it to a token of the node's api.auth.tokens\n`
    : `svc ${command}: the node needs an operator token: set SVC_TOKEN to a token of the node's api.auth.tokens\n`;
}
