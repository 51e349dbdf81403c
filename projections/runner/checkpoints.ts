/**
 * Projection checkpoints in SQLite (`<stream.store_dir>/projections.sqlite`): per projection its state, the
 * stream sequence that state reflects, and the projection version that wrote it. A checkpoint is only a
 * shortcut: the runner ignores one of another version or another stream, and replay from zero gives the
 * same answers.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface Checkpoint {
  readonly name: string;
  readonly version: number;
  readonly stream: string;
  readonly seq: number;
  readonly state: unknown;
  readonly savedAt: string;
}

export interface CheckpointStore {
  load(name: string): Checkpoint | null;
  save(checkpoint: Omit<Checkpoint, 'savedAt'>): void;
  remove(name: string): void;
  close(): void;
}

/** Opens (creating) the checkpoint database under `dir`; `:memory:` keeps them for the process only. */
export function openCheckpoints(dir: string): CheckpointStore {
  let file = ':memory:';
  if (dir !== ':memory:') {
    mkdirSync(dir, { recursive: true });
    file = join(dir, 'projections.sqlite');
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, state TEXT NOT NULL, saved_at TEXT NOT NULL)',
  );
  const get = db.prepare(
    'SELECT name, version, stream, seq, state, saved_at FROM checkpoints WHERE name = ?',
  );
  const put = db.prepare(
    'INSERT INTO checkpoints (name, version, stream, seq, state, saved_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version, stream = excluded.stream, seq = excluded.seq, state = excluded.state, saved_at = excluded.saved_at',
  );
  const del = db.prepare('DELETE FROM checkpoints WHERE name = ?');
  return {
    load(name) {
      const row = get.get(name) as
        | { name: string; version: number; stream: string; seq: number; state: string; saved_at: string }
        | undefined;
      if (!row) return null;
      let state: unknown;
      try {
        state = JSON.parse(row.state);
      } catch {
        return null;
      }
      return {
        name: row.name,
        version: row.version,
        stream: row.stream,
        seq: row.seq,
        state,
        savedAt: row.saved_at,
      };
    },
    save(c) {
      put.run(c.name, c.version, c.stream, c.seq, JSON.stringify(c.state), new Date().toISOString());
    },
    remove(name) {
      del.run(name);
    },
    close() {
      db.close();
    },
  };
}
