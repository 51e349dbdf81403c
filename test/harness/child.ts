/**
 * Runs the built `svc` command as a child process and reads its pino JSON lines, so tests wait for
 * the log record that says a thing happened instead of sleeping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const svcBin = join(root, 'dist', 'scripts', 'svc.js');

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

export interface SvcChild {
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  readonly stderr: () => string;
  readonly stdout: () => string;
  /** Resolves with the first log line matching, past or future; rejects if the process exits first. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

export function runSvc(args: string[], env: Record<string, string | undefined> = {}, cwd = root): SvcChild {
  // SVC_CHILD_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the children a benchmark starts.
  const nodeArgs = process.env['SVC_CHILD_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, svcBin, ...args], {
    cwd,
    env: { PATH: process.env['PATH'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let out = '';
  let err = '';
  const waiters: Array<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    out += `${text}\n`;
    try {
      const line = JSON.parse(text) as LogLine;
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    } catch {
      // not a log line (help text, version)
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    lines,
    stderr: () => err,
    stdout: () => out,
    exited,
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitForLog(match, timeoutMs = 60_000) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise<LogLine>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching log line within ${timeoutMs} ms\n${out}\n${err}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`svc exited (${code}) before the log line\n${out}\n${err}`));
        });
      });
    },
  };
}

export { freePort };
