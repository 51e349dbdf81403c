/**
 * `svc replay`: a stream's messages as JSON lines for audit, on either engine. Data is printed as
 * text when it is valid UTF-8 (JSON payloads stay readable), else as `{"base64": ...}`.
 * `--verify` checks that sequences strictly increase and reports gaps: messages removed by a
 * stream's own limits (age, count, work-queue acknowledgement) are gaps too, so verify is meant for
 * streams kept forever (SVC_CONFIG, SVC_WORK, SVC_PAGES) or a range inside the retention window.
 */
import type { Bus } from '../bus/index.js';

export interface ReplayRequest {
  readonly stream: string;
  readonly fromSeq?: number;
  readonly since?: Date;
  readonly subject?: string;
  readonly verify: boolean;
}

export interface ReplayResult {
  readonly count: number;
  readonly first: number | null;
  readonly last: number | null;
  readonly gaps: ReadonlyArray<{ after: number; next: number }>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function printable(data: Uint8Array): string | { base64: string } {
  try {
    return utf8.decode(data);
  } catch {
    return { base64: Buffer.from(data).toString('base64') };
  }
}

/** Writes one line per message, then (with verify) a summary line; waits for the sink to drain. */
export async function replayStream(
  bus: Bus,
  request: ReplayRequest,
  out: NodeJS.WritableStream,
): Promise<ReplayResult> {
  const info = await bus.streamInfo(request.stream);
  let count = 0;
  let first: number | null = null;
  let previous: number | null = null;
  const gaps: Array<{ after: number; next: number }> = [];
  const options = {
    ...(request.fromSeq !== undefined ? { fromSeq: request.fromSeq } : {}),
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.subject !== undefined ? { subject: request.subject } : {}),
  };
  for await (const msg of bus.replay(request.stream, options)) {
    const line = JSON.stringify({
      seq: msg.seq,
      subject: msg.subject,
      time: msg.time.toISOString(),
      headers: msg.headers,
      data: printable(msg.data),
    });
    if (!out.write(`${line}\n`)) await new Promise((resolve) => out.once('drain', resolve));
    // A subject filter skips sequences on purpose; only an unfiltered read can show gaps.
    if (request.verify && request.subject === undefined && previous !== null && msg.seq !== previous + 1) {
      gaps.push({ after: previous, next: msg.seq });
    }
    if (request.verify && previous !== null && msg.seq <= previous)
      gaps.push({ after: previous, next: msg.seq });
    first ??= msg.seq;
    previous = msg.seq;
    count += 1;
  }
  const result: ReplayResult = { count, first, last: previous, gaps };
  if (request.verify) {
    const summary = {
      verify: gaps.length === 0 ? 'ok' : 'gaps',
      stream: request.stream,
      count,
      first,
      last: previous,
      stream_first_seq: info.firstSeq,
      stream_last_seq: info.lastSeq,
      gaps,
    };
    out.write(`${JSON.stringify(summary)}\n`);
  }
  return result;
}
