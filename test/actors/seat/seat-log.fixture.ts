/**
 * What the seat log and turn journal tests share: a bus of either engine with the catalogue, and a need.
 */
import type { Test } from 'tap';
import { ensureCatalogue, openBus, openMemoryBus, type Bus } from '../../../bus/index.js';
import type { SeatNeed } from '../../../schema/index.js';
import { startNatsServer } from '../../harness/nats-server.js';

export type Engine = 'memory' | 'jetstream';
export const engines: readonly Engine[] = ['memory', 'jetstream'];

/** A bus on `engine` (JetStream: its own nats-server) with the stream catalogue, closed at the test's end. */
export async function busFor(t: Test, engine: Engine): Promise<Bus> {
  const bus =
    engine === 'memory'
      ? await openMemoryBus()
      : await openBus({ type: 'jetstream', url: (await startNatsServer({ t })).url });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  return bus;
}

/** A question to `dana` with the id `id`. */
export const need = (id: string): SeatNeed => ({
  id,
  to: 'dana',
  question: `Question ${id}?`,
  context: null,
  urgency: 'normal',
  asked_at: '2026-12-05T09:00:00.000Z',
  turn_id: null,
});
