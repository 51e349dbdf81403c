/**
 * Why a listener could not bind. The gateway reports only that binding failed, so the port is tried once more
 * with node:net, whose error code says why (in use, privileged, not an address of this host).
 */
import { createServer } from 'node:net';

/** `key` is the Tier A key that set the port (`api.port`, `api.public.port`): the fix names it. */
export async function whyNotListening(host: string, port: number, key: string): Promise<string> {
  const code = await new Promise<string | null>((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'unknown'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use by another process (another svc node?); stop it or set another ${key} (\`ss -ltnp 'sport = :${port}'\` names it)`;
    case 'EACCES':
      return `port ${port} needs privileges this process lacks (ports below 1024); use a port above 1023`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine; set api.host to one of its addresses, 127.0.0.1 or 0.0.0.0`;
    case null:
      return `port ${port} on ${host} could not be bound, though it is free now (taken for a moment?); start again`;
    default:
      return `port ${port} on ${host} could not be bound (${code})`;
  }
}
