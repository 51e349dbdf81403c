/**
 * What the Tier A file's schema (tier-a.ts) and its cross-field checks (tier-a.checks.ts) both read: the
 * closed values, the node-id grammar, and loose readers of a file that may have failed its shape check.
 * Kept apart so neither of the two imports the other for them.
 */
export const QueueType = {
  Memory: 'memory',
  JetStream: 'jetstream',
  JetStreamEmbedded: 'jetstream-embedded',
} as const;
export type QueueType = (typeof QueueType)[keyof typeof QueueType];

/** A node id: it names coordination keys and bus subjects, so it stays inside their grammar. */
export const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const nodeIdGrammar = 'node id: letters, digits, _ and - (max 64)';

/** How this machine runs coding sandboxes (ops/sandboxes.md "Isolation"): the machine's operator decides. */
export const SandboxIsolation = { Process: 'process', Bubblewrap: 'bubblewrap' } as const;
export type SandboxIsolation = (typeof SandboxIsolation)[keyof typeof SandboxIsolation];
export const SandboxNetwork = { Host: 'host', None: 'none' } as const;
export type SandboxNetwork = (typeof SandboxNetwork)[keyof typeof SandboxNetwork];

/**
 * Numbers also read from text: `port: ${PORT}` substitutes to the string "8080", and a platform that hands
 * out the port through the environment is the common case.
 */
export const numberText = (value: unknown): unknown =>
  typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : value;

export function valueAt(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let at: unknown = value;
  for (const step of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[step];
  }
  return at;
}

export function listAt(value: unknown, path: ReadonlyArray<string | number>): unknown[] {
  const list = valueAt(value, path);
  return Array.isArray(list) ? (list as unknown[]) : [];
}
