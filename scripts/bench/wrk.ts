/**
 * wrk, the load generator of the HTTP benchmarks: a C program, so the node measured keeps the CPU a Node
 * client would take. Installed from Debian with apt-get when missing (the script says so).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Fewer threads than cores: the server (one Node thread) keeps most of the machine. */
export const wrkThreads = Math.max(1, Math.floor(availableParallelism() / 2));

export function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return;
  } catch (err) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
  }
  console.log('setup: wrk is missing; installing the Debian package wrk with apt-get');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (args: string[]): void => {
    const [cmd, ...rest] = [...sudo, ...args];
    execFileSync(cmd!, rest, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'wrk']);
}
