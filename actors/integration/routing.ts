/**
 * Who an inbound notification goes to (pure). Wiki, most specific first (spec): page watchers (a
 * comment's `@mentions` join them and are added as watchers), unit leads of the page's space, then
 * handle or e-mail resolution of the people the event names. The first step that yields anyone
 * decides; the triggering user is removed at every step, and a step whose only candidate is the
 * trigger drops the event. Other vendors: the addressed seat, mentions and named people, in one step.
 * Human seats are skipped quietly (humans are notified natively).
 */
import type { InboundNotification } from '../../schema/index.js';
import { resolveSeat, type People } from './people.js';

export interface RouteDecision {
  /** Agent seats to wake. */
  readonly recipients: readonly string[];
  /** Seats the notification mentions (their inbox message is a `mention`). */
  readonly mentioned: readonly string[];
  readonly skippedHumans: readonly string[];
  /** Why nothing is delivered, when nothing is. */
  readonly dropped: 'only_trigger' | 'no_candidates' | null;
  /** Which step decided: `seat`, `watchers`, `leads`, `resolution`, `direct`. */
  readonly step: string | null;
  /** Wiki: agents to add as watchers of the page. */
  readonly addWatchers: readonly string[];
  /** The seat who caused the event, when the sender resolved to one (a wake from them answers them). */
  readonly trigger: string | null;
}

const uniq = (xs: ReadonlyArray<string | null>): string[] => [
  ...new Set(xs.filter((x): x is string => x !== null)),
];

export function routeNotification(
  n: InboundNotification,
  people: People,
  watchers: readonly string[] = [],
): RouteDecision {
  const seats = people.directory.seats;
  const trigger = n.trigger === null ? null : resolveSeat(people, n.pipeline, n.trigger);
  const mentioned = uniq(n.mentions.map((m) => resolveSeat(people, n.pipeline, m)));
  const addWatchers =
    n.pipeline === 'wiki'
      ? mentioned.filter((h) => seats.get(h)?.kind === 'agent' && !watchers.includes(h))
      : [];
  const steps: Array<[string, string[]]> =
    n.pipeline === 'wiki'
      ? [
          ['watchers', uniq([...watchers.filter((h) => seats.has(h)), ...mentioned])],
          ['leads', uniq(people.directory.units.filter((u) => u.wikiSpace !== null && u.wikiSpace === n.subject.space).map((u) => u.lead))],
          ['resolution', uniq(n.named.map((p) => resolveSeat(people, n.pipeline, p)))],
        ]
      : [
          [n.seat !== null ? 'seat' : 'direct', uniq([n.seat !== null && seats.has(n.seat) ? n.seat : null, ...mentioned, ...n.named.map((p) => resolveSeat(people, n.pipeline, p))])],
        ]; // prettier-ignore
  for (const [step, candidates] of steps) {
    if (candidates.length === 0) continue;
    const others = candidates.filter((h) => h !== trigger);
    if (others.length === 0)
      return {
        recipients: [],
        mentioned,
        skippedHumans: [],
        dropped: 'only_trigger',
        step,
        addWatchers,
        trigger,
      };
    return {
      recipients: others.filter((h) => seats.get(h)?.kind === 'agent'),
      mentioned,
      skippedHumans: others.filter((h) => seats.get(h)?.kind === 'human'),
      dropped: null,
      step,
      addWatchers,
      trigger,
    };
  }
  return {
    recipients: [],
    mentioned,
    skippedHumans: [],
    dropped: 'no_candidates',
    step: null,
    addWatchers,
    trigger,
  };
}
