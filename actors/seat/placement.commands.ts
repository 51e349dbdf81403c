/**
 * Pause and resume reach the node that holds the seat. `svc.cmd.seats.pause|resume` goes to any one
 * seats node (a queue group): the holder answers itself; another node reads the seat's lease and
 * forwards the command to the holder's own subject (`svc.cmd.seats-<node>.<verb>`), which answers
 * only for seats it runs (never forwards again). A seat no live node holds is not_found.
 */
import { Subjects, type Bus, type Kv, type Subscription } from '../../bus/index.js';
import { SeatCommandVerb, SeatPause, SeatResume, type SeatCommandReply } from '../../schema/index.js';
import { leaseLive, readLease } from '../lease/index.js';
import { placementKeys } from './placement.view.js';
import type { SeatHost } from './seat.host.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const forwardTimeoutMs = 5_000;

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

const nodeArea = (node: string): string => `seats-${node}`;

export function answerSeatCommands(opts: SeatCommandsOptions): Subscription[] {
  const answer = (reply: SeatCommandReply): Uint8Array => encoder.encode(JSON.stringify(reply));
  const notFound = (seat: string): Uint8Array =>
    answer({ ok: false, error: 'not_found', detail: `no agent seat ${seat} runs in the fleet` });

  const pause = (host: SeatHost, data: Uint8Array): Uint8Array => {
    const cmd = SeatPause.parse(JSON.parse(decoder.decode(data)));
    const paused = {
      by: cmd.by,
      at: opts.now().toISOString(),
      reason: cmd.reason,
      stop_running: cmd.stop_running,
    };
    host.send({ type: 'seat.pause', paused });
    return answer({ ok: true, handle: host.handle, paused });
  };
  const resume = (host: SeatHost, data: Uint8Array): Uint8Array => {
    const cmd = SeatResume.parse(JSON.parse(decoder.decode(data)));
    host.send({
      type: 'seat.resume',
      by: cmd.by,
      at: opts.now().toISOString(),
      ...(cmd.reason !== undefined ? { reason: cmd.reason } : {}),
    });
    return answer({ ok: true, handle: host.handle, paused: null });
  };

  /** The live holder of the seat when it is another node. */
  const holderOf = async (id: string): Promise<string | null> => {
    const handle = opts.handleOf(id);
    if (handle === null) return null;
    const lease = await readLease(opts.coord, placementKeys.seat(handle)).catch(() => null);
    if (lease === null || !leaseLive(lease, opts.now().getTime()) || lease.node === opts.nodeId) return null;
    return lease.node;
  };

  const subs: Subscription[] = [];
  for (const [verb, act] of [
    [SeatCommandVerb.Pause, pause],
    [SeatCommandVerb.Resume, resume],
  ] as const) {
    const seatOf = (data: Uint8Array): string => {
      const parsed: unknown = JSON.parse(decoder.decode(data));
      return verb === SeatCommandVerb.Pause ? SeatPause.parse(parsed).seat : SeatResume.parse(parsed).seat;
    };
    subs.push(
      opts.bus.reply(Subjects.command('seats', verb), async (msg) => {
        const seat = seatOf(msg.data);
        const host = opts.findSeat(seat);
        if (host) return act(host, msg.data);
        const holder = await holderOf(seat);
        if (holder === null) return notFound(seat);
        try {
          const reply = await opts.bus.request(Subjects.command(nodeArea(holder), verb), msg.data, {
            timeoutMs: forwardTimeoutMs,
          });
          return reply.data;
        } catch {
          // The holder went away between the lease read and the request.
          return notFound(seat);
        }
      }),
      opts.bus.reply(Subjects.command(nodeArea(opts.nodeId), verb), (msg) => {
        const seat = seatOf(msg.data);
        const host = opts.findSeat(seat);
        return Promise.resolve(host ? act(host, msg.data) : notFound(seat));
      }),
    );
  }
  return subs;
}
