/**
 * A loopback port for a server a test starts, outside the kernel's ephemeral range (32768–60999 by default):
 * a port the kernel hands out for port 0 comes from that range, and so does the local port of every outgoing
 * connection, so such a port could be taken by some test's client before the server bound it (seen: "port …
 * is in use"). Each test process takes ports from a block of its own (by pid), in turn, so two test
 * processes running side by side do not hand out the same port either — not even one a test is about to
 * bind again after killing its server. A block is claimed by a file under the temp dir naming the process (a
 * block by pid alone was shared by two processes whose pids met modulo the block count: seen once in CI as
 * "port … is in use"); a claim whose process is gone is taken over. Every port is checked bindable before
 * it is handed out.
 */
import { once } from 'node:events';
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOW = 20_000;
const BLOCKS = 96;
const BLOCK_SIZE = 125; // 20000 + 96 × 125 = 32000, below the ephemeral range
let next = Math.floor(Math.random() * BLOCK_SIZE);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Writes this process's claim on `file`; false when another live process holds it. */
function claim(file: string): boolean {
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    const owner = Number(readFileSync(file, 'utf8'));
    if (owner === process.pid) return true;
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
    try {
      unlinkSync(file);
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch {
      return false; // another process took the stale claim first
    }
  }
}

/** The first block from this pid's own that no other live test process holds (else the pid's own). */
function claimBlock(): number {
  const dir = join(tmpdir(), 'svc-test-port-blocks');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < BLOCKS; i++) {
    const b = (process.pid + i) % BLOCKS;
    const file = join(dir, String(b));
    if (!claim(file)) continue;
    process.once('exit', () => {
      try {
        if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
      } catch {
        // already gone or taken over
      }
    });
    return LOW + b * BLOCK_SIZE;
  }
  return LOW + (process.pid % BLOCKS) * BLOCK_SIZE;
}

let claimed: number | null = null;

async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]); // prettier-ignore
  } catch {
    return false;
  }
  server.close();
  await once(server, 'close');
  return true;
}

/** A TCP port on 127.0.0.1 that was free a moment ago, from this process's own block. */
export async function freePort(): Promise<number> {
  const block = (claimed ??= claimBlock());
  for (let tried = 0; tried < BLOCK_SIZE; tried++) {
    const port = block + (next++ % BLOCK_SIZE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${block}–${block + BLOCK_SIZE - 1}`);
}
