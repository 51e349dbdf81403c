/**
 * Pools of provider entries an apply (or a rollback) replaced or removed, kept while calls that started on
 * them run, so `/credential-pool` still counts those calls (ops/providers.md "Apply").
 */
import type { CredentialPoolSnapshot } from '../../../schema/index.js';
import type { CredentialPool } from './credential-pool.js';

interface Named {
  readonly name: string;
  readonly pool: CredentialPool;
}

export class RetiredPools {
  private retired: Named[] = [];

  /** Keeps the entries of `before` no longer in `current` while calls run on them. */
  retire(before: Iterable<Named>, current: Iterable<Named>): void {
    const live = new Set([...current].map((entry) => entry.pool));
    const kept = new Set(this.retired.map((entry) => entry.pool));
    for (const entry of before) if (!live.has(entry.pool) && !kept.has(entry.pool)) this.retired.push(entry);
    this.retired = this.retired.filter((entry) => !live.has(entry.pool) && entry.pool.inFlight > 0);
  }

  /**
   * The snapshot of `current`, each call still running on a retired pool counted where it started: under the
   * same name on the key written identically, or, the entry renamed or removed, under its old name.
   */
  snapshot(current: Iterable<Named>): CredentialPoolSnapshot {
    this.retired = this.retired.filter((entry) => entry.pool.inFlight > 0);
    const out: CredentialPoolSnapshot = {};
    const supersededOf = (name: string, but?: CredentialPool): CredentialPool[] =>
      this.retired.filter((e) => e.name === name && e.pool !== but).map((e) => e.pool);
    for (const { name, pool } of current) out[name] = pool.snapshot(supersededOf(name));
    // Newest first: an entry replaced and then removed reads as its latest definition.
    for (const { name, pool } of [...this.retired].reverse())
      if (out[name] === undefined) out[name] = pool.snapshot(supersededOf(name, pool));
    return out;
  }
}
