/** What runs on this host, read from /proc and by signal 0: tests check that what a run started has ended. */
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

/** Whether a process `pid` exists (a zombie not yet reaped counts): signal 0 delivers nothing, only checks. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of group `pgid` exists (a run's agent and whatever it started share its group). */
export function groupAlive(pgid: number): boolean {
  return isAlive(-pgid);
}
