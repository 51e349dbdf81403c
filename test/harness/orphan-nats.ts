/**
 * A nats-server left on an embedded store the way a killed node leaves it: started on the store with
 * its pid file, its parent gone (a shell that backgrounds it and exits, so init adopts it). Stopped by
 * pid in a teardown if the test has not seen it go.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { freePort, natsServerBinary } from './nats-server.js';

export interface OrphanNats {
  readonly pid: number;
  readonly url: string;
  /** Resolves when the server has exited (its inherited stderr pipe closes). */
  readonly exited: Promise<void>;
}

/** True while `pid` is a running (not zombie) process. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Resolves once `pid` no longer runs; rejects after `timeoutMs` (a process not ours has no exit event). */
export async function untilGone(pid: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (running(pid)) {
    if (Date.now() > until) throw new Error(`pid ${pid} still runs after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts an orphaned server on `<storeDir>/jetstream`; resolves once it accepts clients. */
export async function orphanNats(t: Test, storeDir: string): Promise<OrphanNats> {
  const dataDir = join(storeDir, 'jetstream');
  const port = await freePort();
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dataDir];
  const sh = spawn(
    'sh',
    ['-c', '"$0" "$@" & echo $!', natsServerBinary, ...args, '-P', join(dataDir, 'nats-server.pid')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let pid = 0;
  t.teardown(() => {
    const cmdline = pid > 0 && running(pid) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
    if (cmdline.includes(dataDir)) process.kill(pid, 'SIGKILL');
  });
  const exited = new Promise<void>((resolve) => sh.stderr.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let log = '';
    const timer = setTimeout(() => reject(new Error(`orphan nats-server not ready:\n${log}`)), 15_000);
    // The pid (shell stdout) and readiness (server stderr) come on two pipes, in either order.
    const settle = () => {
      if (pid > 0 && log.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    sh.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      pid = Number(out.trim().split('\n')[0]);
      settle();
    });
    sh.stderr.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-8_000);
      settle();
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`orphan nats-server exited before ready:\n${log}`));
    });
  });
  return { pid, url: `nats://127.0.0.1:${port}`, exited };
}
