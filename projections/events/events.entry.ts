/**
 * An entry of the events index (events.index.ts): what is added, what a listing filters on, the saved form a
 * checkpoint holds, and the layout of an entry's flag byte.
 */
import { EventCategory, type Instant } from '../../schema/index.js';
import type { EventKind } from './events.kinds.js';

export const categoryCodes = Object.values(EventCategory);
export const FEED = 0x80;
/** Flag bit: the entry's id is stored two bytes a code unit. */
export const WIDE = 0x40;
/** Bits 3..5: the entry's `EventKind` (events.kinds.ts); bits 0..2: its category code. */
export const KIND = 0x38;
export const KIND_SHIFT = 3;
export const CATEGORY = 0x07;
/** The flag bits an entry keeps (and a checkpoint saves): all but `WIDE`, which the arena decides. */
export const KEPT = FEED | KIND | CATEGORY;

export interface IndexEntry {
  readonly instant: Instant;
  readonly id: string;
  readonly seq: number;
  readonly category: EventCategory;
  readonly feed: boolean;
  readonly agentId: string | undefined;
  readonly traceId: string;
  readonly type: string;
  /** `EventKind.Other` when absent. */
  readonly kind?: EventKind;
}

/** What a listing filters on. */
export interface IndexFilter {
  readonly category?: EventCategory;
  readonly agentId?: string;
  readonly feedOnly?: boolean;
  readonly kind?: EventKind;
  /** One event type (an unknown type matches nothing). */
  readonly type?: string;
}

export interface SavedIndex {
  readonly ms: number[];
  readonly ns: number[];
  readonly seq: number[];
  readonly flags: number[];
  readonly agent: number[];
  readonly type: number[];
  readonly ids: string[];
  readonly traceA: number[];
  readonly traceB: number[];
  readonly agents: string[];
  readonly types: string[];
}

/** The flag bits of an entry's kind, for `insertStaged`. */
export const flagsOfKind = (kind: EventKind): number => kind << KIND_SHIFT;
