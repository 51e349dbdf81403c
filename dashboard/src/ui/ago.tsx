/**
 * Relative times ("48s ago") that move on their own: every <Ago> on the page reads one shared coarse clock
 * and redraws itself alone when its words change, so a quiet page does not go on saying "48s ago", and the
 * room around it is not drawn again for it.
 */
import { useEffect, useState } from 'preact/hooks';
import { ago } from './format.js';

/** Coarse on purpose: seconds are read to within this, minutes and hours at most this late. */
const TICK_MS = 10_000;

const readers = new Set<() => void>();
let timer: number | null = null;

/** One timer for the whole page, running only while some relative time is shown. */
function follow(reader: () => void): () => void {
  readers.add(reader);
  timer ??= window.setInterval(() => {
    for (const read of readers) read();
  }, TICK_MS);
  return () => {
    readers.delete(reader);
    if (readers.size > 0 || timer === null) return;
    window.clearInterval(timer);
    timer = null;
  };
}

/** `at` as a relative time, kept current by the shared clock. */
export function Ago(props: { at: string | null | undefined }) {
  const text = ago(props.at);
  // Set to the same words, the state does not change and nothing is drawn.
  const [, setShown] = useState(text);
  useEffect(() => follow(() => setShown(ago(props.at))), [props.at]);
  return <>{text}</>;
}

/** Whether `at` is past on the browser's clock (an absent or unreadable instant never is). */
const passed = (at: string | null | undefined): boolean => !!at && Date.parse(at) <= Date.now();

/**
 * Which of `instants` are past, kept current by the same shared clock as <Ago>: its caller is drawn again
 * when one more passes (in the same tick as the relative times beside it), not on every tick.
 */
export function usePassed(
  instants: ReadonlyArray<string | null | undefined>,
): (at: string | null | undefined) => boolean {
  const key = instants.join('\n');
  const read = (): string => instants.map((at) => (passed(at) ? '1' : '0')).join('');
  // Set to the same flags, the state does not change and nothing is drawn.
  const [, setShown] = useState(read);
  useEffect(() => follow(() => setShown(read())), [key]);
  return passed;
}
