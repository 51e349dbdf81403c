/**
 * The seat host's side of a phase the machine asks for: runs it (turn.phase.ts) with the profile and
 * tools its turn started with, notes what it produced for the turn's episode, and tells the machine how
 * it went — done, deferred until a provider's key is usable again, or failed.
 */
import type { Logger } from 'pino';
import type { SeatEvents } from './seat.events.js';
import type { SeatHostOptions } from './seat.host.types.js';
import type { PhaseRequest, SeatEvent } from './seat.machine.js';
import type { SeatProfile } from './seat.profile.js';
import { turnContext } from './turn.context.js';
import type { TurnDeps } from './turn.deps.js';
import { draftOf, noteOutcome, type EpisodeDraft } from './turn.episode.js';
import { PhaseDeferred, PhaseFailure, runPhase } from './turn.phase.js';
import type { OpenedTurn } from './turn.resume.js';
import type { TurnSpans } from './turn.spans.js';

/**
 * A turn as it started: the profile and picked tools (in-flight turns keep their settings), and what the
 * seat knew then that bears on it (turn.context.ts).
 */
export interface StartedTurn {
  readonly profile: SeatProfile;
  readonly picked: readonly string[];
  readonly known: string | null;
}

export function phaseRunner(host: {
  readonly opts: Pick<SeatHostOptions, 'company' | 'counterparty' | 'reflection'>;
  readonly log: Logger;
  /** Fenced: every model call, tool call and spend record proves the lease first. */
  readonly deps: Omit<TurnDeps, 'events'>;
  readonly eventsFor: SeatEvents['eventsFor'];
  readonly spans: TurnSpans;
  /** Per turn, as it started; kept by the host, which forgets a turn when it ends. */
  readonly turns: Map<string, StartedTurn>;
  /** Per turn: what its phases produced, for its episode. */
  readonly drafts: Map<string, EpisodeDraft>;
  /** Per turn: its journal (what an earlier run recorded, and the writer). */
  readonly journals: ReadonlyMap<string, OpenedTurn>;
  /** The seat's profile now: a turn's first phase starts with it. */
  readonly profile: () => SeatProfile;
  /** The running turn's abort signal (a new one per turn). */
  readonly signal: () => AbortSignal;
  /** Set once the seat stops: a phase ending after that tells the machine nothing. */
  readonly stopping: () => boolean;
  readonly tell: (event: SeatEvent) => void;
}): (req: PhaseRequest) => Promise<void> {
  const { opts, log, deps, turns, drafts, journals } = host;
  return async function phase(req: PhaseRequest): Promise<void> {
    const { turn } = req;
    // Taken before the first wait: the phase is this run's from here, so a turn ending meanwhile leaves
    // it to this run (which records its end) rather than closing it as one a cut left open.
    const opened = journals.get(turn.turn_id);
    const journal = opened?.phase(req.phase, turn.iteration);
    const profile = host.profile();
    const started = turns.get(turn.turn_id) ?? {
      profile,
      picked: [],
      known: await turnContext(opts, profile, turn.wake, deps.now(), log),
    };
    turns.set(turn.turn_id, started);
    const company = opts.company();
    try {
      const result = await runPhase(
        { ...deps, events: host.eventsFor(turn.wake.trace_id) },
        {
          turn,
          phase: req.phase,
          seat: started.profile,
          charter: company.charter,
          // Read at each model call's check: a cap lowered while the turn runs stops it at its next call
          // (the rest of the turn keeps the profile it started with).
          caps: {
            get org() {
              return opts.company().token_budget;
            },
            get seat() {
              return host.profile().token_budget;
            },
          },
          signal: host.signal(),
          ...(opened && journal ? { journal, calls: opened.calls } : {}),
          parent: host.spans.of(turn),
          known: started.known,
        },
        started.picked,
      );
      // A turn cut at its deadline has ended already: its late phase leaves nothing behind.
      if (turns.has(turn.turn_id)) {
        if (result.picked) turns.set(turn.turn_id, { ...started, picked: result.picked });
        drafts.set(
          turn.turn_id,
          noteOutcome(
            drafts.get(turn.turn_id) ?? draftOf(turn.wake),
            result.outcome,
            result.tools,
            result.skills,
          ),
        );
      }
      if (!host.stopping())
        host.tell({
          type: 'seat.phase.done',
          turn_id: turn.turn_id,
          tokens: result.tokens,
          at: deps.now().toISOString(),
          outcome: result.outcome,
        });
    } catch (error) {
      if (host.stopping()) return;
      if (error instanceof PhaseDeferred) {
        host.tell({ type: 'seat.turn.deferred', turn_id: turn.turn_id, retry_at: error.retryAt });
        return;
      }
      const failure = error instanceof PhaseFailure ? error : new PhaseFailure('error', String(error), 0);
      if (failure.reason !== 'aborted')
        log.warn(
          { err: loggedError(error), reason: failure.reason, turn_id: turn.turn_id, phase: req.phase },
          'phase failed',
        );
      host.tell({
        type: 'seat.phase.failed',
        turn_id: turn.turn_id,
        phase: req.phase,
        tokens: failure.tokens,
        at: deps.now().toISOString(),
        reason: failure.reason,
        error: failure.message,
      });
    }
  };
}

/**
 * The error a phase failure is logged with: a failure's cause when the failure only repeats the cause's
 * message (the logger appends a cause's message to the error's, which would say it twice), else the error.
 */
function loggedError(error: unknown): unknown {
  if (!(error instanceof PhaseFailure)) return error;
  const cause: unknown = error.cause;
  return cause instanceof Error && cause.message === error.message ? cause : error;
}
