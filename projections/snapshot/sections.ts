/**
 * The snapshot sections: `/stream/snapshot` and the socket's first frame are assembled
 * from a registry of sections, and each section's pushes become socket frames of its name. A section not
 * registered answers its empty value (`[]`, or `null` for `budget`).
 */

/** `replace`: the data is the whole section; `merge`: the data is an overlay merged into what the client holds. */
export type PushMode = 'replace' | 'merge';

export interface SnapshotSection {
  readonly name: string;
  current(): unknown;
  /** Calls `push` on every change; returns the unsubscribe function. */
  subscribe(push: (data: unknown, mode: PushMode) => void): () => void;
}

/** The snapshot's keys, in the spec's order. */
export const SnapshotKeys = [
  'health',
  'agents',
  'events',
  'sandboxes',
  'tools',
  'org',
  'tokens',
  'budget',
  'schedules',
] as const;
export type SnapshotKey = (typeof SnapshotKeys)[number];

const emptyValue = (name: string): unknown => (name === 'budget' ? null : []);

export type SectionListener = (name: string, data: unknown, mode: PushMode) => void;

export class SectionRegistry {
  private readonly sections = new Map<string, SnapshotSection>();
  private readonly listeners = new Set<SectionListener>();
  private readonly unsubscribers = new Map<string, () => void>();

  /** Adds a section; a second section with the same name is a wiring error. */
  register(section: SnapshotSection): void {
    if (this.sections.has(section.name)) throw new Error(`snapshot section ${section.name} registered twice`);
    this.sections.set(section.name, section);
    this.unsubscribers.set(
      section.name,
      section.subscribe((data, mode) => {
        for (const listener of this.listeners) listener(section.name, data, mode);
      }),
    );
  }

  has(name: string): boolean {
    return this.sections.has(name);
  }

  /** The section's current value, or its empty value when no section of that name is registered. */
  current(name: string): unknown {
    const section = this.sections.get(name);
    return section ? section.current() : emptyValue(name);
  }

  /** `{health, agents, events, sandboxes, tools, org, tokens, budget, schedules}`. */
  snapshot(): Record<SnapshotKey, unknown> {
    const out = {} as Record<SnapshotKey, unknown>;
    for (const key of SnapshotKeys) out[key] = this.current(key);
    return out;
  }

  /** Every push of every section (registered before or after this call). */
  onPush(listener: SectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    for (const stop of this.unsubscribers.values()) stop();
    this.unsubscribers.clear();
    this.listeners.clear();
  }
}
