/**
 * A loopback port for a server a test starts, outside the kernel's ephemeral range (32768–60999 by default):
 * a port the kernel hands out for port 0 comes from that range, and so does the local port of every outgoing
 * connection, so such a port could be taken by some test's client before the server bound it (seen: "port …
 * is in use"). Each test process takes ports from a block of its own (by pid), in turn, so two test
 * processes running side by side do not hand out the same port either — not even one a test is about to
 * bind again after killing its server. Every port is checked bindable before it is handed out.
 */
import { once } from 'node:events';
import { createServer } from 'node:net';

const LOW = 20_000;
const BLOCKS = 96;
const BLOCK_SIZE = 125; // 20000 + 96 × 125 = 32000, below the ephemeral range
const block = LOW + (process.pid % BLOCKS) * BLOCK_SIZE;
let next = Math.floor(Math.random() * BLOCK_SIZE);

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
  for (let tried = 0; tried < BLOCK_SIZE; tried++) {
    const port = block + (next++ % BLOCK_SIZE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${block}–${block + BLOCK_SIZE - 1}`);
}
