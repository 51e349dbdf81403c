/**
 * A loopback port for a server a test starts. Picked at random below the kernel's ephemeral range
 * (32768–60999 by default) and checked free by binding it: a port the kernel hands out for port 0 comes from
 * that range, and so does the local port of every outgoing connection, so a port picked that way could be
 * taken by some test's client connection before the server bound it (seen: "port … is in use").
 */
import { once } from 'node:events';
import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_000;

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

/** A TCP port on 127.0.0.1 that was free a moment ago, outside the range client connections draw from. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found between ${LOW} and ${HIGH}`);
}
