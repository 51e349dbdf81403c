/**
 * A singleton duty held as a lease in the coordination store (DESIGN.md: singleton duties), under
 * `duty.<name>`; the lease mechanics are shared with the seat leases (actors/lease).
 */
import type { Kv } from '../../bus/index.js';
import type { DutyLease } from '../../schema/index.js';
import {
  acquireLease,
  readLease,
  releaseLease,
  renewLease,
  type AcquireOptions,
  type AcquireResult,
  type Held,
  type LeaseIdentity,
} from '../lease/index.js';

export type { AcquireResult, Held };
export type DutyIdentity = LeaseIdentity;

export function dutyKey(duty: string): string {
  return `duty.${duty}`;
}

/** Takes the duty when nobody holds it, the lease expired, or this node restarted (its earlier process is gone). */
export function acquireDuty(
  kv: Kv,
  me: DutyIdentity,
  now: Date,
  ttlMs: number,
  opts: AcquireOptions = {},
): Promise<AcquireResult> {
  return acquireLease(kv, dutyKey(me.duty), me, now, ttlMs, opts);
}

/** Extends the lease; null when someone else took it (the epoch moved on). */
export function renewDuty(kv: Kv, held: Held, now: Date, ttlMs: number): Promise<Held | null> {
  return renewLease(kv, dutyKey(held.lease.duty), held, now, ttlMs);
}

/** Ends the lease now so another node may take over at once; a lost lease is left alone. */
export function releaseDuty(kv: Kv, held: Held, now: Date): Promise<void> {
  return releaseLease(kv, dutyKey(held.lease.duty), held, now);
}

/** The current lease of a duty (for `/fleet`), or null. */
export function readDuty(kv: Kv, duty: string): Promise<DutyLease | null> {
  return readLease(kv, dutyKey(duty));
}
