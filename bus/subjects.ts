/**
 * Every subject svc uses, built in one place (house style 3). Tokens that come from data (a seat
 * handle, an event type) are checked, so a handle with a dot or a wildcard can never widen a subject.
 */
import { InvalidNameError } from './errors.js';

const TOKEN = /^[A-Za-z0-9_-]+$/;
/** Event types may be dotted (`seat.turn.completed`) so prefix wildcards work. */
const DOTTED = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

function token(kind: string, value: string): string {
  if (!TOKEN.test(value))
    throw new InvalidNameError(`invalid ${kind} "${value}" for a subject: letters, digits, _ and - only`);
  return value;
}

function dotted(kind: string, value: string): string {
  if (!DOTTED.test(value)) throw new InvalidNameError(`invalid ${kind} "${value}" for a subject`);
  return value;
}

export const Subjects = {
  /** Every engine event (`svc.events.>`); `type` may be dotted. */
  event: (type: string): string => `svc.events.${dotted('event type', type)}`,
  events: 'svc.events.>',
  /**
   * A stream-only event type's live subject (`agent_turn_progress`): no stream captures `svc.live.>`, so
   * what is emitted here reaches live subscribers and is never stored (on `svc.events.>` JetStream would
   * keep it).
   */
  liveEvent: (type: string): string => `svc.live.${dotted('event type', type)}`,
  notificationsInbound: 'svc.notifications.inbound',
  /** One agent seat's inbox (never for human seats). */
  agentInbox: (handle: string): string => `svc.agent.${token('seat handle', handle)}.inbox`,
  agentInboxes: 'svc.agent.*.inbox',
  configRevisionStored: 'svc.config.revision_stored',
  configRevisionActivated: 'svc.config.revision_activated',
  configRevisionApplied: 'svc.config.revision_applied',
  config: 'svc.config.>',
  /** Accepted raw webhook deliveries of one pipeline (`tracker-a`, `wiki`, ...): the audit store. */
  webhookDelivery: (pipeline: string): string => `svc.webhooks.${token('webhook pipeline', pipeline)}`,
  webhooksAll: 'svc.webhooks.>',
  /** One integration actor's record (`svc.integrations.tracker-b.pass_finished`, `...arrival`). */
  integration: (kind: string, record: string): string =>
    `svc.integrations.${token('integration kind', kind)}.${token('integration record', record)}`,
  integrationsAll: 'svc.integrations.>',
  /** Every vendor's webhook arrival records: what an arrivals rollup sums and then removes. */
  integrationArrivals: 'svc.integrations.*.arrival',
  spend: (kind: string): string => `svc.spend.${dotted('spend kind', kind)}`,
  spendAll: 'svc.spend.>',
  work: (kind: string): string => `svc.work.${dotted('work record', kind)}`,
  workAll: 'svc.work.>',
  /** Every project's item and file records (`svc.work.p.<PROJECT>`): what task effects react to. */
  workProjects: 'svc.work.p.*',
  pages: (kind: string): string => `svc.pages.${dotted('page record', kind)}`,
  pagesAll: 'svc.pages.>',
  /** One turn's journal (`svc.turns.<handle>.<turn id>`): its progress, so a cut turn resumes. */
  turnJournal: (handle: string, turnId: string): string =>
    `svc.turns.${token('seat handle', handle)}.${token('turn id', turnId)}`,
  turnJournals: 'svc.turns.>',
  /** Every journal of one seat's turns. */
  seatJournals: (handle: string): string => `svc.turns.${token('seat handle', handle)}.*`,
  /** One seat actor's own records (`svc.seats.<handle>.log`): its open needs, rebuilt on start. */
  seatLog: (handle: string): string => `svc.seats.${token('seat handle', handle)}.log`,
  /** The state one seat's log folds to up to a sequence, so a start reads the tail only. */
  seatSnapshot: (handle: string): string => `svc.seats.${token('seat handle', handle)}.snapshot`,
  /**
   * A lease holder's epoch mark on one seat's log, written before it reads the log: a record of a lower
   * epoch stored after it is a superseded holder's late write (actors/seat/seat.log.ts).
   */
  seatHeld: (handle: string): string => `svc.seats.${token('seat handle', handle)}.held`,
  seatLogs: 'svc.seats.>',
  /** One detached coding run's record (`svc.sandbox.<sandbox id>`): each carries the whole run. */
  sandboxRun: (id: string): string => `svc.sandbox.${token('sandbox id', id)}`,
  sandboxRuns: 'svc.sandbox.>',
  /** A lease-holding process instance answers here while it runs (actors/lease/holder.ts). */
  leaseHolder: (instance: string): string => `svc.lease.holder.${token('lease instance', instance)}`,
} as const;

const eventPrefix = 'svc.events.';

/** The event type an engine event's subject names (`svc.events.<type>`), or null for another subject. */
export function eventTypeOf(subject: string): string | null {
  return subject.startsWith(eventPrefix) ? subject.slice(eventPrefix.length) : null;
}

const seatLogSubject = /^svc\.seats\.([^.]+)\.(log|snapshot|held)$/;

/** What a part of a seat's log is: a record, a snapshot, or a lease holder's epoch mark. */
export type SeatLogPart = 'log' | 'snapshot' | 'held';

/**
 * What a `SVC_SEATS` subject is: a seat's log record (`svc.seats.<handle>.log`), its snapshot
 * (`svc.seats.<handle>.snapshot`) or a holder's epoch mark (`svc.seats.<handle>.held`), with the seat's
 * handle; null for another subject (a release before the marks reads a mark's subject as null).
 */
export function seatLogPart(subject: string): { readonly handle: string; readonly part: SeatLogPart } | null {
  const match = seatLogSubject.exec(subject);
  return match ? { handle: match[1] as string, part: match[2] as SeatLogPart } : null;
}
