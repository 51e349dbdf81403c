/**
 * Where each running stream projection stands, per bus: `GET /metrics` reports each one's lag (the stream's
 * last sequence minus the last one folded). Keyed by the bus the projection reads, so two nodes in one
 * process (tests) never see each other's projections.
 */
import type { Bus } from '../../bus/index.js';

export interface ProjectionPosition {
  readonly name: string;
  readonly stream: string;
  /** The last stream sequence folded in. */
  seq(): number;
}

const byBus = new WeakMap<Bus, Set<ProjectionPosition>>();

/** Tracks one running projection; returns the untrack. */
export function trackPosition(bus: Bus, position: ProjectionPosition): () => void {
  let set = byBus.get(bus);
  if (set === undefined) byBus.set(bus, (set = new Set()));
  set.add(position);
  return () => void set.delete(position);
}

/** The stream projections running on `bus` now. */
export function projectionPositions(bus: Bus): ProjectionPosition[] {
  return [...(byBus.get(bus) ?? [])];
}
