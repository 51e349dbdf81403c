/**
 * `svc replay`: a stream's messages as JSON lines for audit, on either engine.
 *
 * Each line is `{seq, subject, time, headers, data}` with `time` in ISO 8601. `data` is the payload
 * as a string when it is valid UTF-8 (JSON payloads stay readable and greppable, and a reader gets
 * the exact bytes back by encoding the string), else `{"base64": "..."}`: one field, two shapes a
 * reader tells apart by type.
 *
 * `verify` ends the output with a summary line and reports gaps a stream's retention cannot explain:
 * - every stream: sequences strictly increase;
 * - a `limits` stream read without a subject filter: sequences are also contiguous, because age and
 *   count limits only ever remove the oldest messages, so a hole inside what is read means loss;
 * - a `workqueue` stream (acknowledged messages are removed one by one), a KV stream (per-key
 *   history), or a filtered read: holes are expected, so only the strict increase is checked.
 * The head of a stream moves with its retention, so verify judges from the first message it reads.
 */
import { Buckets, catalogueStreams, Retention, StreamNotFoundError, type Bus } from '../bus/index.js';
import { didYouMean } from './cli-suggest.js';

export interface ReplayRequest {
  readonly stream: string;
  readonly fromSeq?: number;
  readonly since?: Date;
  readonly subject?: string;
  readonly verify?: boolean;
  /** The stream's retention; default: the catalogue's for svc streams, else `limits`. */
  readonly retention?: Retention;
}

export interface ReplayGap {
  /** Last sequence read before the gap. */
  readonly after: number;
  /** Sequence read next. */
  readonly next: number;
}

export interface ReplayResult {
  readonly count: number;
  readonly first: number | null;
  readonly last: number | null;
  readonly gaps: readonly ReplayGap[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function printable(data: Uint8Array): string | { base64: string } {
  try {
    return utf8.decode(data);
  } catch {
    return { base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') };
  }
}

function retentionOf(request: ReplayRequest): Retention {
  if (request.retention) return request.retention;
  const known = catalogueStreams().find((spec) => spec.name === request.stream);
  return known?.retention ?? Retention.Limits;
}

/** The streams svc keeps: the catalogue's and its KV buckets' (`KV_<bucket>`), for a mistyped name. */
const svcStreamNames = (): string[] => [
  ...catalogueStreams().map((spec) => spec.name),
  ...Object.values(Buckets).map((bucket) => `KV_${bucket}`),
];

/** The stream's info; a name the store lacks is refused in one line naming the near svc stream, if one is. */
async function infoOf(bus: Bus, stream: string): Promise<Awaited<ReturnType<Bus['streamInfo']>>> {
  try {
    return await bus.streamInfo(stream);
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
    throw new StreamNotFoundError(`stream ${stream} does not exist${didYouMean(stream, svcStreamNames())}`, {
      cause: error,
    });
  }
}

/** Writes one line per message, then (with verify) a summary line; waits for the sink to drain. */
export async function replayStream(
  bus: Bus,
  request: ReplayRequest,
  out: NodeJS.WritableStream,
): Promise<ReplayResult> {
  const info = await infoOf(bus, request.stream);
  const retention = retentionOf(request);
  // KV buckets are streams `KV_<bucket>` whose per-key history leaves holes by design.
  const contiguous =
    retention === Retention.Limits && request.subject === undefined && !request.stream.startsWith('KV_');
  const write = async (line: string): Promise<void> => {
    if (!out.write(`${line}\n`)) await new Promise((resolve) => out.once('drain', resolve));
  };
  let count = 0;
  let first: number | null = null;
  let previous: number | null = null;
  const gaps: ReplayGap[] = [];
  const options = {
    ...(request.fromSeq !== undefined ? { fromSeq: request.fromSeq } : {}),
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.subject !== undefined ? { subject: request.subject } : {}),
  };
  for await (const msg of bus.replay(request.stream, options)) {
    await write(
      JSON.stringify({
        seq: msg.seq,
        subject: msg.subject,
        time: msg.time.toISOString(),
        headers: msg.headers,
        data: printable(msg.data),
      }),
    );
    if (previous !== null && (msg.seq <= previous || (contiguous && msg.seq !== previous + 1))) {
      gaps.push({ after: previous, next: msg.seq });
    }
    first ??= msg.seq;
    previous = msg.seq;
    count += 1;
  }
  if (request.verify) {
    await write(
      JSON.stringify({
        verify: gaps.length === 0 ? 'ok' : 'gaps',
        stream: request.stream,
        retention,
        checked: contiguous ? 'contiguous' : 'increasing',
        count,
        first,
        last: previous,
        stream_first_seq: info.firstSeq,
        stream_last_seq: info.lastSeq,
        gaps,
      }),
    );
  }
  return { count, first, last: previous, gaps };
}
