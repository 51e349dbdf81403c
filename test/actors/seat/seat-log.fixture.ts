/**
 * What the seat log and turn journal tests share: a bus of either engine with the catalogue, a need, the
 * seat's log as a lease holder opens it, and the needs `readmodels.seat_needs` folds from zero.
 */
import type { Test } from 'tap';
import { ensureCatalogue, openBus, openMemoryBus, type Bus } from '../../../bus/index.js';
import { leaseHeaders } from '../../../actors/lease/index.js';
import { openSeatLog, type SeatLog } from '../../../actors/seat/seat.log.js';
import { openCheckpoints, runProjection } from '../../../projections/index.js';
import { seatNeedsProjection } from '../../../projections/readmodels/readmodels.seat-needs.js';
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

/** The seat `cto`'s log as the holder of `epoch` opens it (`headers` as seats.runtime.ts gives them). */
export const openAs = (
  bus: Bus,
  epoch: number,
  snapshotEvery = 50,
  troubles: string[] = [],
): Promise<SeatLog> =>
  openSeatLog({
    bus,
    handle: 'cto',
    node: 'node-a',
    fence: () => undefined,
    now: () => new Date('2026-12-05T10:00:00.000Z'),
    snapshotEvery,
    onTrouble: (what) => troubles.push(what),
    ...(leaseHeaders(epoch) ? { headers: leaseHeaders(epoch) } : {}),
  });

/** `readmodels.seat_needs` from zero over the stream: the needs it tells for `cto`. */
export async function fromZero(bus: Bus): Promise<string[] | undefined> {
  const checkpoints = openCheckpoints(':memory:');
  const told = new Map<string, string[]>();
  const projection = seatNeedsProjection({
    onNeeds: (h, needs) =>
      told.set(
        h,
        needs.map((n) => n.id),
      ),
  });
  const run = await runProjection({ bus, projection, checkpoints });
  await run.stop();
  checkpoints.close();
  return told.get('cto');
}
