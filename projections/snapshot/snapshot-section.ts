/** A snapshot section backed by its own subscribers; the registry lives in sections.ts. */
import type { PushMode, SnapshotSection } from './sections.js';

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

  /** Pushes the section as it stands; built only when someone listens (the tick pushes with no one there). */
  emitCurrent(): void {
    if (this.subscribers.size === 0) return;
    this.emit(this.read(), 'replace');
  }
}
