/** Folds the stream's frames into what the rooms render: a pure function of (state, frame). */
import type { AgentRow, EventRow, Frame, Snapshot } from './types.js';

/** Newest feed rows kept for the live views; older ones are paged from the `events` question. */
export const FEED_KEEP = 500;

/** `token-needed`: the node answers but refuses reads without a token, and none is held (not `offline`). */
export type Link = 'connecting' | 'live' | 'polling' | 'offline' | 'token-needed';

export interface LiveState {
  readonly snapshot: Snapshot | null;
  readonly link: Link;
  /** Bumped by every frame that changes the company (org, seats, tools): questions re-ask on it. */
  readonly configTick: number;
  /** Bumped by every new event: questions about history re-ask on it. */
  readonly eventTick: number;
  /**
   * Bumped by the node's `fleet` push (its fleet view changed: a node joined or left, a lease or duty changed
   * holder or epoch, an applied epoch moved) and by the other frames that announce a fleet change (see
   * `movesFleet`): the fleet room re-asks on it.
   */
  readonly fleetTick: number;
  /**
   * Bumped by every snapshot (a socket opened or reopened, a token entered or forgotten, a poll): every
   * question asks again on it, so answers refused or lost while the link was down come back by themselves.
   */
  readonly epoch: number;
  /** The node refuses reads without a token and none is held: no snapshot until one is entered. */
  readonly readsRefused: boolean;
  /** Why the data is missing, when it is (a refused token, an unreachable node). */
  readonly problem: string | null;
  /** Said once the node refused the held token, until another is entered: snapshots do not clear it. */
  readonly tokenDropped: boolean;
}

export const initialState: LiveState = {
  snapshot: null,
  link: 'connecting',
  configTick: 0,
  eventTick: 0,
  fleetTick: 0,
  epoch: 0,
  readsRefused: false,
  problem: null,
  tokenDropped: false,
};

const emptySnapshot: Snapshot = {
  health: null,
  agents: {},
  events: [],
  sandboxes: [],
  tools: [],
  org: null,
  tokens: null,
  budget: null,
  schedules: null,
};

function asSnapshot(data: unknown): Snapshot {
  const raw = (typeof data === 'object' && data !== null ? data : {}) as Partial<Snapshot>;
  return {
    ...emptySnapshot,
    ...raw,
    agents: raw.agents ?? {},
    events: Array.isArray(raw.events) ? raw.events.slice(0, FEED_KEEP) : [],
    tools: Array.isArray(raw.tools) ? raw.tools : [],
    sandboxes: Array.isArray(raw.sandboxes) ? raw.sandboxes : [],
  };
}

/**
 * Event types that say a node changed: an apply (each node's own epoch, and a node that just joined applies
 * at start) and an alarm (a node shed, its bus cut, its configuration lagging).
 */
const fleetEvents = new Set(['ConfigRevisionApplied', 'alarm_raised', 'alarm_cleared']);

const placedOf = (row: AgentRow | undefined): boolean | undefined =>
  row === undefined ? undefined : row.stopped_reason !== 'unplaced';

/**
 * Whether a frame announces a fleet change the fleet room shows: a health pulse whose node count, held seats,
 * epoch or posture moved; an agent row whose seat was placed or lost its holder; a node's apply or alarm.
 * A seat lease moving between two peers or the scheduler duty failing over is told by the `fleet` push alone.
 */
function movesFleet(snapshot: Snapshot, frame: Frame): boolean {
  if (frame.kind === 'health') {
    const was = snapshot.health;
    const now = frame.data as Snapshot['health'];
    if (was === null || now === null || typeof now !== 'object') return was !== now;
    return (
      was.nodes !== now.nodes ||
      was.applied_epoch !== now.applied_epoch ||
      was.posture !== now.posture ||
      was.status !== now.status ||
      (was.seats ?? []).join('\n') !== (now.seats ?? []).join('\n')
    );
  }
  if (frame.kind === 'agents')
    return Object.entries((frame.data ?? {}) as Record<string, AgentRow>).some(
      ([handle, row]) => placedOf(snapshot.agents[handle]) !== placedOf(row),
    );
  if (frame.kind === 'event') return fleetEvents.has((frame.data as EventRow | null)?.type ?? '');
  return false;
}

/** Replace-style sections: the frame's data is the whole section. */
const sections = new Set(['health', 'org', 'tools', 'sandboxes', 'tokens', 'budget', 'schedules', 'seats']);
const configSections = new Set(['org', 'tools', 'seats']);

export function applyFrame(state: LiveState, frame: Frame): LiveState {
  if (frame.kind === 'snapshot' && typeof frame.dropped === 'number')
    // A resync: the socket stayed open but lost frames (events, overlays, a fleet marker), so the state is
    // replaced as on connect and the questions that follow the stream ask once more. Not the epoch: the
    // node answers every question asked on the socket (a shed answer by its error), so none is asked twice.
    return {
      ...state,
      snapshot: asSnapshot(frame.data),
      configTick: state.configTick + 1,
      eventTick: state.eventTick + 1,
      fleetTick: state.fleetTick + 1,
      problem: null,
    };
  if (frame.kind === 'snapshot')
    // Events may have happened while the link was down: history questions ask again too.
    return {
      ...state,
      snapshot: asSnapshot(frame.data),
      configTick: state.configTick + 1,
      eventTick: state.eventTick + 1,
      epoch: state.epoch + 1,
      readsRefused: false,
      problem: null,
    };
  // A marker (data null): the fleet itself is guarded, read with the token by the room that shows it.
  if (frame.kind === 'fleet') return { ...state, fleetTick: state.fleetTick + 1 };
  const snapshot = state.snapshot ?? emptySnapshot;
  const next = applySection(state, snapshot, frame);
  return next !== state && movesFleet(snapshot, frame) ? { ...next, fleetTick: state.fleetTick + 1 } : next;
}

function applySection(state: LiveState, snapshot: Snapshot, frame: Frame): LiveState {
  if (frame.kind === 'event') {
    const row = frame.data as EventRow;
    if (snapshot.events.some((e) => e.id === row.id)) return state;
    const events = [row, ...snapshot.events].slice(0, FEED_KEEP);
    return { ...state, snapshot: { ...snapshot, events }, eventTick: state.eventTick + 1 };
  }
  if (frame.kind === 'agents') {
    // Merge overlays carry whole rows (their nullable keys included), so a row is replaced as a whole.
    const agents: Record<string, AgentRow> = { ...snapshot.agents };
    for (const [handle, row] of Object.entries((frame.data ?? {}) as Record<string, AgentRow>))
      agents[handle] = row;
    return { ...state, snapshot: { ...snapshot, agents } };
  }
  if (frame.kind === 'events' && Array.isArray(frame.data)) {
    const events = (frame.data as EventRow[]).slice(0, FEED_KEEP);
    return { ...state, snapshot: { ...snapshot, events }, eventTick: state.eventTick + 1 };
  }
  if (frame.kind === 'seats' && Array.isArray(frame.data)) {
    // The apply's `agents` frame is the whole section but reads like an overlay (the frame names no
    // mode), so it cannot drop a removed seat's row; the `seats` frame, whole on every apply, does.
    const handles = new Set((frame.data as Array<{ handle?: unknown }>).map((s) => s.handle));
    const agents = Object.fromEntries(Object.entries(snapshot.agents).filter(([h]) => handles.has(h)));
    return {
      ...state,
      snapshot: { ...snapshot, seats: frame.data, agents },
      configTick: state.configTick + 1,
    };
  }
  if (sections.has(frame.kind)) {
    const next = { ...state, snapshot: { ...snapshot, [frame.kind]: frame.data } };
    return configSections.has(frame.kind) ? { ...next, configTick: state.configTick + 1 } : next;
  }
  return state;
}
