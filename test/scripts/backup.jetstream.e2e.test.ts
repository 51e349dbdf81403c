/**
 * The restore runbook of ops/backups.md on one real nats-server (the embedded engine's): the export keeps
 * every sequence, so the restored node reads the same configuration history and the same events.
 */
import t from 'tap';
import { roundTrip } from './fixtures/backup-round-trip.js';

t.test('a JetStream backup restored into a fresh server serves the same /config and /events', (t) =>
  roundTrip(t, 'jetstream-embedded'),
);
