/**
 * The live view of a phase in flight, streamed as `agent_turn_progress` (stream-only, never stored): the
 * round in flight and when it started, the call running now (the model, or a tool, with its start), the
 * rounds finished so far, the narration of the latest finished round and the text of the round being
 * written. Every frame is the whole view, so a reader that missed one is current on the next. Frames are
 * sent at most every `everyMs` (changes in between make one frame, the newest view): a phase of many quick
 * tool rounds would otherwise send, and every node fold, a growing view four times a round. The text
 * streaming in counts as a change at most every `partialEveryMs`. `close()` sends what is not yet sent and
 * ends the view; a record that ends the call is published after it (`endingCall`), and a stop of the turn
 * (pause, deadline, shutdown, lost lease) closes it the moment it fires, before the stop's own record: a
 * frame sent after such a record would be stamped newer and bring the call back on a read model.
 */
import type { Payloads } from '../../schema/index.js';
import type { TurnDeps } from './turn.deps.js';

type ToolExecution = (typeof Payloads.ToolExecution)['_output'];
type Round = (typeof Payloads.Round)['_output'];
type RunningCall = (typeof Payloads.RunningCall)['_output'];
type InFlight = NonNullable<(typeof Payloads.AgentPhaseCompleted)['_output']['in_flight']>;

/** How often the text of a round being written is sent while it streams. */
export const PARTIAL_EVERY_MS = 250;
/** How often a frame is sent at most (20 a second: as often as a person can follow). */
export const PROGRESS_EVERY_MS = 50;

export interface PhaseLive {
  /** A model call of `round` starts (round -1: the opening prompt). */
  modelCall(round: number, model: string, provider: string | null): void;
  /** The model call moved to another provider of its chain (a fallback): the view names the one called now. */
  provider(provider: string, model: string): void;
  /** More of the round's text arrived. */
  partial(text: string): void;
  /** A tool call starts. */
  toolCall(name: string, origin: string): void;
  /** The model answered round `round` (its text is the round's narration) or a tool finished. */
  settled(update: { readonly model?: string; readonly response?: string; readonly narration?: string }): void;
  /** The phase's round limit moved (an extension). */
  maxRounds(n: number): void;
  /** Sends the change not yet sent, if any, and sends nothing after: the phase is over. */
  close(): void;
  /** The call in flight as the view shows it now (a failed phase's record keeps it: frames are not stored). */
  inFlight(): InFlight;
}

export interface LiveTiming {
  /** At most one frame per this many ms; 0 sends every change as it happens. */
  readonly everyMs?: number;
  readonly partialEveryMs?: number;
}

export function phaseLive(
  deps: Pick<TurnDeps, 'events' | 'now'>,
  key: { readonly turn_id: string; readonly phase: string; readonly iteration: number },
  view: {
    readonly model: string;
    readonly max_rounds: number;
    /** The phase's own lists (read at each send; rows are appended by the loop). */
    readonly rounds: readonly Round[];
    readonly executions: readonly ToolExecution[];
  },
  timing: LiveTiming = {},
  /** The turn's stop: once it fires the call is over, and no frame of it is sent after. */
  signal?: AbortSignal,
): PhaseLive {
  const everyMs = timing.everyMs ?? PROGRESS_EVERY_MS;
  const partialEveryMs = timing.partialEveryMs ?? PARTIAL_EVERY_MS;
  let model = view.model;
  let maxRounds = view.max_rounds;
  let response = '';
  let roundNum = -1;
  let roundStartedAt: string | null = null;
  let narration: string | null = null;
  let partialRound: string | null = null;
  let running: RunningCall | null = null;
  let partialSentAt = 0;
  // Text held by the interval is sent when it passes, though no more comes (a model that writes a line and
  // then thinks, or streams a tool call's arguments): the throttle keeps its trailing edge.
  let partialTimer: ReturnType<typeof setTimeout> | null = null;
  const dropPartialTimer = (): void => {
    if (partialTimer !== null) clearTimeout(partialTimer);
    partialTimer = null;
  };
  const frame = (): void =>
    deps.events.progress({
      ...key,
      model,
      max_rounds: maxRounds,
      response,
      tool_calls: [...view.executions],
      rounds: [...view.rounds],
      round_num: roundNum,
      round_started_at: roundStartedAt,
      running_call: running,
      partial_round: partialRound,
      ...(narration !== null ? { round_narration: narration } : {}),
    });
  // The real clock (the seat's may be a test's): frames are paced by timers.
  let frameAt = -Infinity;
  let unsent = false;
  let closed = false;
  let cancel: (() => void) | null = null;
  const flush = (): void => {
    cancel = null;
    if (!unsent || closed) return;
    unsent = false;
    frameAt = performance.now();
    frame();
  };
  const send = (): void => {
    if (closed) return;
    if (everyMs <= 0) return frame();
    unsent = true;
    if (cancel !== null) return;
    const wait = frameAt + everyMs - performance.now();
    if (wait > 0) {
      const timer = setTimeout(flush, wait);
      cancel = () => clearTimeout(timer);
    } else {
      // Still deferred: the changes of this turn of the event loop make one frame.
      const immediate = setImmediate(flush);
      cancel = () => clearImmediate(immediate);
    }
  };
  const close = (): void => {
    if (closed) return;
    dropPartialTimer();
    cancel?.();
    flush();
    closed = true;
    signal?.removeEventListener('abort', close);
  };
  // Synchronous with the abort: the stop's record is stamped after whatever the view still held.
  if (signal?.aborted) close();
  else signal?.addEventListener('abort', close, { once: true });
  return {
    modelCall(round, callModel, provider) {
      const at = deps.now();
      roundNum = round;
      roundStartedAt = at.toISOString();
      if (callModel) model = callModel;
      partialRound = null;
      partialSentAt = at.getTime();
      dropPartialTimer();
      running = { name: model, started_at: roundStartedAt, origin: 'model', server: provider };
      send();
    },
    provider(provider, callModel) {
      if (running?.origin !== 'model' || (running.server === provider && running.name === callModel)) return;
      model = callModel;
      // A new call to another provider: its start is now (the round's start stays in round_started_at).
      running = { name: callModel, started_at: deps.now().toISOString(), origin: 'model', server: provider };
      send();
    },
    partial(text) {
      partialRound = text;
      const now = deps.now().getTime();
      const wait = partialSentAt + partialEveryMs - now;
      if (wait > 0) {
        partialTimer ??= setTimeout(() => {
          partialTimer = null;
          partialSentAt = deps.now().getTime();
          send();
        }, wait);
        return;
      }
      dropPartialTimer();
      partialSentAt = now;
      send();
    },
    toolCall(name, origin) {
      running = {
        name,
        started_at: deps.now().toISOString(),
        origin,
        server: origin.startsWith('mcp:') ? origin.slice('mcp:'.length) : null,
      };
      send();
    },
    settled(update) {
      if (update.model) model = update.model;
      if (update.response !== undefined) response = update.response;
      if (update.narration !== undefined) narration = update.narration === '' ? narration : update.narration;
      partialRound = null;
      dropPartialTimer();
      running = null;
      send();
    },
    maxRounds(n) {
      maxRounds = n;
    },
    close,
    inFlight: () => ({ round_num: roundNum, round_started_at: roundStartedAt, running_call: running }),
  };
}

/**
 * Publishes a record that ends the phase's call (its outcome, a deferral, a refusal) after the view's last
 * frame: that frame still shows the call running, and stamped after the record it would bring the call
 * back (a read model takes the newer of the two).
 */
export async function endingCall<T>(live: PhaseLive, publish: () => Promise<T>): Promise<T> {
  live.close();
  return publish();
}
