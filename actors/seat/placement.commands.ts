/**
 * Pause, resume and clearing a seat's needs reach the node that holds the seat.
 * `Commands.seats.pause|resume|clearNeeds` goes to any one seats node (a queue group): the holder answers
 * itself; another node reads the seat's lease and forwards the command to the holder's own subject
 * (`Commands.seats.pauseAt(node)`, ...), which answers only for seats it runs (never forwards again). A
 * seat no live node holds is not_found.
 */
import { randomUUID } from 'node:crypto';
import { sendCommand, serveCommand, type Bus, type Kv, type Subscription } from '../../bus/index.js';
import {
  Commands,
  type Command,
  type SeatCommandReply,
  type SeatNeedsClear,
  type SeatNeedsReply,
  type SeatPause,
  type SeatResume,
} from '../../schema/index.js';
import { leaseLive, readLease } from '../lease/index.js';
import { placementKeys } from './placement.view.js';
import type { SeatHost } from './seat.host.types.js';
import type { Paused } from './seat.machine.js';

export interface SeatCommandsOptions {
  readonly bus: Bus;
  readonly coord: Kv;
  readonly nodeId: string;
  readonly now: () => Date;
  /** The host running here for a handle or a seat name, or null. */
  readonly findSeat: (id: string) => SeatHost | null;
  /** The handle an id names (a handle or a seat name) in the applied company, or null. */
  readonly handleOf: (id: string) => string | null;
}

const samePause = (a: Paused | null, b: Paused): boolean =>
  a !== null && a.by === b.by && a.at === b.at && a.reason === b.reason && a.stop_running === b.stop_running;

export function answerSeatCommands(opts: SeatCommandsOptions): Subscription[] {
  const notFound = (seat: string): SeatCommandReply & SeatNeedsReply => ({
    ok: false,
    error: 'not_found',
    detail: `no agent seat ${seat} runs in the fleet`,
  });

  const pause = (host: SeatHost, cmd: SeatPause): SeatCommandReply => {
    const paused = {
      by: cmd.by,
      at: opts.now().toISOString(),
      reason: cmd.reason,
      stop_running: cmd.stop_running,
    };
    host.send({ type: 'seat.pause', paused });
    // A pause already in force stays (a stop_running one escalates it): the answer is what holds now.
    const inForce = host.paused();
    return { ok: true, handle: host.handle, paused: inForce, changed: samePause(inForce, paused) };
  };
  const resume = (host: SeatHost, cmd: SeatResume): SeatCommandReply => {
    const was = host.paused();
    host.send({
      type: 'seat.resume',
      by: cmd.by,
      at: opts.now().toISOString(),
      ...(cmd.reason !== undefined ? { reason: cmd.reason } : {}),
    });
    return { ok: true, handle: host.handle, paused: host.paused(), changed: was !== null };
  };

  const clearNeeds = async (host: SeatHost, cmd: SeatNeedsClear): Promise<SeatNeedsReply> => {
    const cleared = await host.closeNeeds({
      cause: 'cleared',
      ids: cmd.ids ?? host.needs().map((n) => n.id),
      by: cmd.by,
      // Each command is its own record: a retried one finds its questions closed and writes nothing.
      key: `cleared:${randomUUID()}`,
      turn_id: null,
    });
    return { ok: true, handle: host.handle, cleared, open: host.needs().map((n) => n.id) };
  };

  /** The live holder of the seat when it is another node. */
  const holderOf = async (id: string): Promise<string | null> => {
    const handle = opts.handleOf(id);
    if (handle === null) return null;
    const lease = await readLease(opts.coord, placementKeys.seat(handle)).catch(() => null);
    if (lease === null || !leaseLive(lease, opts.now().getTime()) || lease.node === opts.nodeId) return null;
    return lease.node;
  };

  /** The fleet-wide subject (any seats node) and this node's own (only seats it runs, never forwarded). */
  const answer = <Body extends { seat: string }, Reply extends SeatCommandReply | SeatNeedsReply>(
    anyNode: Command<Body, Reply>,
    atNode: (node: string) => Command<Body, Reply>,
    act: (host: SeatHost, cmd: Body) => Reply | Promise<Reply>,
  ): Subscription[] => [
    serveCommand(opts.bus, anyNode, async (cmd) => {
      const host = opts.findSeat(cmd.seat);
      if (host) return act(host, cmd);
      const holder = await holderOf(cmd.seat);
      if (holder === null) return notFound(cmd.seat) as Reply;
      try {
        return await sendCommand(opts.bus, atNode(holder), cmd);
      } catch {
        // The holder went away between the lease read and the request.
        return notFound(cmd.seat) as Reply;
      }
    }),
    serveCommand(opts.bus, atNode(opts.nodeId), (cmd) => {
      const host = opts.findSeat(cmd.seat);
      return host ? act(host, cmd) : (notFound(cmd.seat) as Reply);
    }),
  ];

  return [
    ...answer(Commands.seats.pause, Commands.seats.pauseAt, pause),
    ...answer(Commands.seats.resume, Commands.seats.resumeAt, resume),
    ...answer(Commands.seats.clearNeeds, Commands.seats.clearNeedsAt, clearNeeds),
  ];
}
