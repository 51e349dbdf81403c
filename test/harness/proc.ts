/** What runs on this host, read from /proc: tests check that what a run started has ended. */
import { readdirSync, readFileSync } from 'node:fs';

/** Host pids whose command line is exactly `argv`. */
export function pidsRunning(argv: readonly string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === wanted;
      } catch {
        return false;
      }
    })
    .map(Number);
}
