/**
 * A section of `/stream/snapshot` and the socket (CONTRACTS.md 7). The events branch owns the registry
 * that assembles them; this is the shape it consumes.
 */
export type PushMode = 'replace' | 'merge';

export interface SnapshotSection {
  readonly name: string;
  current(): unknown;
  /** Calls `push` on every change; returns the unsubscribe function. */
  subscribe(push: (data: unknown, mode: PushMode) => void): () => void;
}

/** A section backed by a set of subscribers; `emit` is called by the read models' hub. */
export class SectionHub implements SnapshotSection {
  private readonly subscribers = new Set<(data: unknown, mode: PushMode) => void>();

  constructor(
    readonly name: string,
    private readonly read: () => unknown,
  ) {}

  current(): unknown {
    return this.read();
  }

  subscribe(push: (data: unknown, mode: PushMode) => void): () => void {
    this.subscribers.add(push);
    return () => this.subscribers.delete(push);
  }

  emit(data: unknown, mode: PushMode): void {
    for (const push of [...this.subscribers]) {
      try {
        push(data, mode);
      } catch {
        // A failing subscriber (a closed socket) must not stop the others; the socket layer logs its own.
      }
    }
  }

  emitCurrent(): void {
    this.emit(this.read(), 'replace');
  }
}
