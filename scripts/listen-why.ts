/**
 * Why a listener could not bind. The gateway reports only that binding failed, so the port is tried once more
 * with node:net, whose error code says why (in use, privileged, not an address of this host).
 */
import { createServer } from 'node:net';

/** The error code of binding `host:port` once with node:net (closed at once), or null when it binds. */
function tryBind(host: string, port: number): Promise<string | null> {
  return new Promise<string | null>((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'unknown'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** What the operator does about a bind that failed with `code`; null for a code with no known remedy. */
function remedy(host: string, port: number, key: string, code: string): string | null {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use by another process (another svc node?); stop it or set another ${key} (\`ss -ltnp 'sport = :${port}'\` names it)`;
    case 'EACCES':
      return `port ${port} needs privileges this process lacks (ports below 1024); use a port above 1023`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine; set api.host to one of its addresses, 127.0.0.1 or 0.0.0.0`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `api.host ${host} names no address (the name does not resolve, ${code}); set api.host to an address of this machine, 127.0.0.1 or 0.0.0.0`;
    default:
      return null;
  }
}

/**
 * Before the node opens its store: a port that cannot be bound now, said with its fix (`key` is the Tier A
 * key that set it), or null. Only causes with a known remedy refuse here; any other is left to the bind.
 */
export async function listenProblem(host: string, port: number, key: string): Promise<string | null> {
  const code = await tryBind(host, port);
  return code === null ? null : remedy(host, port, key, code);
}

/** `key` is the Tier A key that set the port (`api.port`, `api.public.port`): the fix names it. */
export async function whyNotListening(host: string, port: number, key: string): Promise<string> {
  const code = await tryBind(host, port);
  if (code === null)
    return `port ${port} on ${host} could not be bound, though it is free now (taken for a moment?); start again`;
  return remedy(host, port, key, code) ?? `port ${port} on ${host} could not be bound (${code})`;
}
