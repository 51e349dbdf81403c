/**
 * Helpers of the bus contract: one list of behaviours every engine must show. Each engine's test file calls
 * `busContract` with a way to open a fresh bus; the same named tests run for each, so the count per
 * engine is equal by construction. Names are random per test so one server can serve them all.
 */
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import { NoRespondersError, type Bus, type StoredMessage } from '../../bus/index.js';

export interface BusFixture {
  readonly bus: Bus;
  /** Closes the bus and opens it again on the same store (engines that persist). */
  readonly reopen?: () => Promise<Bus>;
  cleanup(): Promise<void>;
}

export const enc = new TextEncoder();
export const dec = new TextDecoder();
export const text = (data: Uint8Array): string => dec.decode(data);
export const unique = (): string => randomBytes(4).toString('hex');

/** Resolves when `check` holds, polling briefly; for effects with no event to wait on (expiry). */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

export async function collect(iterable: AsyncIterable<StoredMessage>): Promise<StoredMessage[]> {
  const out: StoredMessage[] = [];
  for await (const msg of iterable) out.push(msg);
  return out;
}

/** A queue of delivered items a test can await one by one. */
export function inbox<T>() {
  const items: T[] = [];
  const waiters: Array<(item: T) => void> = [];
  return {
    push(item: T) {
      const waiter = waiters.shift();
      if (waiter) waiter(item);
      else items.push(item);
    },
    next(timeoutMs = 5_000): Promise<T> {
      const item = items.shift();
      if (item !== undefined) return Promise.resolve(item);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('nothing arrived in time')), timeoutMs);
        waiters.push((value) => {
          clearTimeout(timer);
          resolve(value);
        });
      });
    },
  };
}

/** Registers one named behaviour with a fresh fixture and a unique id. */
export type WithBus = (name: string, body: (fx: BusFixture, id: string, t: Test) => Promise<void>) => void;

/**
 * Resolves once a request on `subject` from `asking` is answered. A replier registered on another client
 * is live at the server only once that client's subscription has arrived there: a request sent before it
 * meets no responders. Repliers of one client register in order, so once the last one answers, all do.
 */
export async function untilAnswered(asking: Bus, subject: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await asking.request(subject, new Uint8Array(), { timeoutMs: 10_000 });
      return;
    } catch (error) {
      if (!(error instanceof NoRespondersError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
