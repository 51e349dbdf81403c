/** What a vendor's pass is given and how it reports steps. */
import type { PassMode, PassStep, StepOutcome } from '../../../schema/index.js';

/** A webhook the service registered at a vendor: its exact address and the vendor's id for it. */
export interface RegisteredHook {
  readonly url: string;
  readonly id: string;
}

export interface PassContext {
  readonly mode: PassMode;
  /** The kind's settings with references resolved (credentials included: never log them). */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly publicUrl: string | null;
  /** Where the vendor delivers under the public base URL (`/webhooks/tracker-b`). */
  readonly inboundPath: string;
  /** The webhooks this kind's passes registered and last saw at the vendor. */
  readonly hooks: readonly RegisteredHook[];
  /** The webhooks to remember after this pass (the whole list); not called, nothing changes. */
  rememberHooks(hooks: readonly RegisteredHook[]): void;
  readonly agentSeats: readonly string[];
  readonly seatsWithToken: readonly string[];
  /** Hands a minted seat credential to the caller to seal; absent when nothing can be sealed. */
  readonly keep?: (seat: string, value: string) => void;
  readonly timeoutMs: number;
  /** The cloud sites' API gateway (site-api.ts); default its public address. */
  readonly cloudApiUrl?: string;
  step(name: string, outcome: StepOutcome, detail: string): void;
}

export type VendorPass = (ctx: PassContext) => Promise<void>;

export const record = (steps: PassStep[]) => (name: string, outcome: StepOutcome, detail: string) =>
  steps.push({ name, outcome, detail });

export const objectAt = (value: unknown, key: string): Record<string, unknown> => {
  const inner =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner)
    ? (inner as Record<string, unknown>)
    : {};
};

export const stringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];

/** A list answer: a bare array or `{results: [...]}`. */
export const listOf = (json: unknown): Array<Record<string, unknown>> => {
  const list = Array.isArray(json) ? json : objectAt({ r: json }, 'r')['results'];
  return Array.isArray(list)
    ? list.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object')
    : [];
};
