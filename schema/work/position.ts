/**
 * Log positions `<stream>@<generation>:<sequence>` (spec `/work/activity`). The generation names the
 * stream's life: it changes only when the work stream is recreated (a reanchor), so a position taken
 * before then is recognisably from another log rather than silently wrong.
 */
export const WORK_STREAM = 'SVC_WORK';
/** The generation of a log never reanchored. */
export const WORK_GENERATION = 1;

/** A position of the work log; `generation` is the log's current stamp (ops "Retention", reanchor). */
export const formatPosition = (seq: number, generation = WORK_GENERATION): string =>
  `${WORK_STREAM}@${generation}:${seq}`;

export interface Position {
  readonly stream: string;
  readonly generation: number;
  readonly seq: number;
}

const POSITION = /^([A-Za-z0-9_-]+)@(\d+):(\d+)$/;

/**
 * The position parsed, or null when it is not `<stream>@<generation>:<sequence>` — or when a number is
 * past what a log counts to (a safe integer), which would otherwise lose its digits on the way.
 */
export function parsePosition(text: string): Position | null {
  const m = POSITION.exec(text);
  if (!m) return null;
  const generation = Number(m[2]);
  const seq = Number(m[3]);
  if (!Number.isSafeInteger(generation) || !Number.isSafeInteger(seq)) return null;
  return { stream: m[1]!, generation, seq };
}
