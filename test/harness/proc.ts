/** What runs on this host, read from /proc and by signal 0: tests check that what a run started has ended. */
import { readdirSync, readFileSync } from 'node:fs';
import { until } from './until.js';

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

/** The process group of `pid` and whether it is a zombie, from /proc/<pid>/stat; null once it is gone. */
function statOf(pid: number): { readonly pgid: number; readonly zombie: boolean } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the parenthesised name: state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pgid: Number(pgrp), zombie: state === 'Z' };
  } catch {
    return null;
  }
}

/** Pids of group `pgid` that still run (a zombie runs nothing: it is only waiting to be reaped). */
function runningIn(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      const stat = statOf(pid);
      return stat !== null && stat.pgid === pgid && !stat.zombie;
    });
}

/**
 * SIGKILLs the whole process group of every process whose command line is `argv`, and resolves once none
 * of those groups runs anything. A sandbox run's agent shares its group with the wrapper shell that leads
 * it: killing the agent alone lets the wrapper go on to write `exit_code` into the control directory a
 * later teardown is removing (rmSync then fails ENOTEMPTY: its retries do not list the directory again).
 * A process in this test's own group is killed alone.
 */
export async function killGroupsOf(argv: readonly string[]): Promise<void> {
  const own = statOf(process.pid)?.pgid;
  const groups = new Set<number>();
  for (const pid of pidsRunning(argv)) {
    const pgid = statOf(pid)?.pgid;
    try {
      if (pgid === undefined || pgid === own || pgid <= 1) process.kill(pid, 'SIGKILL');
      else {
        process.kill(-pgid, 'SIGKILL');
        groups.add(pgid);
      }
    } catch {
      // Gone meanwhile.
    }
  }
  await until(
    () => Promise.resolve([...groups].flatMap(runningIn)),
    (left) => left.length === 0,
    { timeoutMs: 30_000, everyMs: 10 },
  );
}
