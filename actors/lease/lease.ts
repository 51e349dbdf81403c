/**
 * A lease in the coordination store (DESIGN.md: leases and singleton duties), kept under any key.
 * Taking it is a `create` (nobody ever held it) or an `update` against the expired lease's revision;
 * a renewal is an `update` against the holder's own last revision. `Kv.update` confirms its win by
 * log order, so two racing candidates never both hold an epoch.
 */
import { KvConflictError, type Kv } from '../../bus/index.js';
import { DutyLease } from '../../schema/index.js';

export interface LeaseIdentity {
  /** What is held (a duty name, `seat.<handle>`): the lease's `duty` field. */
  readonly duty: string;
  readonly node: string;
  readonly instance: string;
}

export interface Held {
  readonly lease: DutyLease;
  readonly revision: number;
}

export type AcquireResult =
  | { readonly won: true; readonly held: Held; readonly since: Date | null }
  | { readonly won: false; readonly retryAt: Date };

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encodeLease = (lease: DutyLease): Uint8Array => encoder.encode(JSON.stringify(lease));

/** The lease a stored value holds, or null when it is not one. */
export function decodeLease(value: Uint8Array): DutyLease | null {
  try {
    const parsed = DutyLease.safeParse(JSON.parse(decoder.decode(value)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Whether the lease still binds others at `nowMs` (its holder renewed it within the ttl). */
export function leaseLive(lease: DutyLease, nowMs: number): boolean {
  return new Date(lease.expires_at).getTime() > nowMs;
}

export interface AcquireOptions {
  /**
   * Whether the process that holds a live lease under this node's id (another instance) is gone: an
   * earlier process of a node that restarted. Without it such a lease is waited out like a peer's; a
   * live process of the same id (a duplicate node id) keeps it.
   */
  readonly holderGone?: (lease: DutyLease) => Promise<boolean>;
}

/**
 * Takes the lease when nobody holds it, it expired, it is this instance's own, or the holder is an
 * earlier process of this same node that is gone (`holderGone`: it restarted, so it holds nothing any
 * more). `since` is the previous holder's last renewal: the last instant someone is known to have held it.
 */
export async function acquireLease(
  kv: Kv,
  key: string,
  me: LeaseIdentity,
  now: Date,
  ttlMs: number,
  opts: AcquireOptions = {},
): Promise<AcquireResult> {
  const fresh = (epoch: number): DutyLease => ({
    duty: me.duty,
    node: me.node,
    instance: me.instance,
    epoch,
    acquired_at: now.toISOString(),
    renewed_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
  });
  try {
    const entry = await kv.get(key);
    if (entry === null) {
      const lease = fresh(1);
      return { won: true, held: { lease, revision: await kv.create(key, encodeLease(lease)) }, since: null };
    }
    const current = decodeLease(entry.value);
    const expired = current === null || !leaseLive(current, now.getTime());
    const restarted =
      !expired &&
      current.node === me.node &&
      (current.instance === me.instance || ((await opts.holderGone?.(current)) ?? false));
    if (!expired && !restarted)
      return { won: false, retryAt: new Date(new Date(current.expires_at).getTime() + 1) };
    const lease = fresh((current?.epoch ?? 0) + 1);
    const revision = await kv.update(key, encodeLease(lease), entry.revision);
    return {
      won: true,
      held: { lease, revision },
      since: current === null ? null : new Date(current.renewed_at),
    };
  } catch (error) {
    if (error instanceof KvConflictError) return { won: false, retryAt: new Date(now.getTime() + 1) };
    throw error;
  }
}

/** Extends the lease; null when someone else took it (the epoch moved on). */
export async function renewLease(
  kv: Kv,
  key: string,
  held: Held,
  now: Date,
  ttlMs: number,
): Promise<Held | null> {
  const lease: DutyLease = {
    ...held.lease,
    renewed_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
  };
  try {
    return { lease, revision: await kv.update(key, encodeLease(lease), held.revision) };
  } catch (error) {
    if (error instanceof KvConflictError) return null;
    throw error;
  }
}

/** Ends the lease now so another node may take over at once; a lost lease is left alone. */
export async function releaseLease(kv: Kv, key: string, held: Held, now: Date): Promise<void> {
  const lease: DutyLease = { ...held.lease, renewed_at: now.toISOString(), expires_at: now.toISOString() };
  try {
    await kv.update(key, encodeLease(lease), held.revision);
  } catch (error) {
    if (!(error instanceof KvConflictError)) throw error;
  }
}

/** The current lease under `key`, or null. */
export async function readLease(kv: Kv, key: string): Promise<DutyLease | null> {
  const entry = await kv.get(key);
  return entry === null ? null : decodeLease(entry.value);
}
