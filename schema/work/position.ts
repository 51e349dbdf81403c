/**
 * Log positions `<stream>@<generation>:<sequence>` (spec `/work/activity`). The generation names the
 * stream's life: it changes only when the work stream is recreated (a reanchor), so a position taken
 * before then is recognisably from another log rather than silently wrong.
 */
export const WORK_STREAM = 'SVC_WORK';
export const WORK_GENERATION = 1;

export const formatPosition = (seq: number): string => `${WORK_STREAM}@${WORK_GENERATION}:${seq}`;

export interface Position {
  readonly stream: string;
  readonly generation: number;
  readonly seq: number;
}

const POSITION = /^([A-Za-z0-9_-]+)@(\d+):(\d+)$/;

/** The position parsed, or null when it is not `<stream>@<generation>:<sequence>`. */
export function parsePosition(text: string): Position | null {
  const m = POSITION.exec(text);
  if (!m) return null;
  return { stream: m[1]!, generation: Number(m[2]), seq: Number(m[3]) };
}
