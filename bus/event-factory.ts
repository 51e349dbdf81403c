/**
 * New event records: a fresh id, span and (unless continued) trace. Here, not in `schema/`, because
 * minting ids draws on the random source, and `schema/` does no I/O.
 */
import { randomUUID } from 'node:crypto';
import type { EventCategory, EventRecord } from '../schema/index.js';

const hex = (bytes: number): string =>
  randomUUID()
    .replaceAll('-', '')
    .slice(0, bytes * 2);

export interface NewEvent {
  readonly type: string;
  readonly category: EventCategory;
  readonly source: string;
  readonly summary: string;
  readonly actor: string;
  readonly payload?: Record<string, unknown>;
  readonly agent_id?: string;
  readonly topic?: string;
  readonly failed?: boolean;
  /** Continue a trace: the parent's trace id and span id. */
  readonly trace?: { readonly trace_id: string; readonly parent_span_id: string | null };
  readonly now?: Date;
  /** A derived id (a record a redelivery must not store twice) instead of a random one. */
  readonly id?: string;
}

/** Builds a complete record with a fresh id, span and (unless continued) trace. */
export function newEvent(e: NewEvent): EventRecord {
  return {
    id: e.id ?? randomUUID(),
    type: e.type,
    source: e.source,
    timestamp: (e.now ?? new Date()).toISOString(),
    category: e.category,
    summary: e.summary,
    actor: e.actor,
    trace_id: e.trace?.trace_id ?? hex(16),
    span_id: hex(8),
    parent_span_id: e.trace?.parent_span_id ?? null,
    failed: e.failed ?? false,
    ...(e.agent_id !== undefined ? { agent_id: e.agent_id } : {}),
    ...(e.topic !== undefined ? { topic: e.topic } : {}),
    payload: e.payload ?? {},
  };
}
