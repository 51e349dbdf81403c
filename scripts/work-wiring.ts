/**
 * The native work tracker of one node (`tracker.backend: native`): the work projection folded by the
 * runner, the writer serving `svc.cmd.work.write`, and the `/work` routes reading the projection and
 * sending changes through the command. Projects, seats and people come from the active document.
 */
import type { Logger } from 'pino';
import {
  EFFECTS_DURABLE,
  startFileSweep,
  startRetentionAcks,
  startWorkHost,
  type RateWindow,
  type WorkAccess,
  type WorkContext,
  type WorkHost,
} from '../actors/index.js';
import { sendCommand, Streams, type Bus, openDocument } from '../bus/index.js';
import { FILES_BUCKET, kvBlobs, workRoutes, type AuthSettings, type RouteDef } from '../http/index.js';
import { activeRevision, followWork, type WorkView } from '../projections/index.js';
import {
  Commands,
  peopleOf,
  projectsOf,
  seatKindsOf,
  type Person,
  type TierA,
  type WorkProject,
} from '../schema/index.js';
import type { Configuration } from './config-wiring.js';
import type { Secrets } from './secrets-wiring.js';

export interface WorkTracker {
  readonly view: WorkView;
  readonly host: WorkHost;
  /** What the seats' builtin work tools use: the state and the writer, in process. */
  readonly access: WorkAccess;
  /** Projects of the active document. */
  projects(): readonly WorkProject[];
  routes(auth: AuthSettings): RouteDef[];
  stop(): Promise<void>;
}

interface DocumentFacts {
  readonly revision: string | null;
  readonly document: unknown;
  readonly context: WorkContext;
}

/** `notification_rate_limit` of a document as the router reads it: 0 (no limit) unless a positive number. */
function rateLimitOf(document: unknown): number {
  const value: unknown =
    typeof document === 'object' && document !== null ? Reflect.get(document, 'notification_rate_limit') : 0;
  return typeof value === 'number' && value > 0 ? value : 0;
}

/** Null unless `tracker.backend` is native. */
export async function startWork(opts: {
  bus: Bus;
  config: TierA;
  configuration: Configuration;
  secrets: Secrets;
  logger: Logger;
  /** Live node ids of the fleet (the retention gestures and status); null while not readable. */
  roster: () => Promise<readonly string[] | null>;
  /** The node's window of wakes on notice, shared with the webhook router (`notification_rate_limit`). */
  wakes?: RateWindow;
}): Promise<WorkTracker | null> {
  if (opts.config.tracker.backend !== 'native') return null;
  const logger = opts.logger.child({ component: 'work' });
  const view = await followWork({ bus: opts.bus, logger });
  // Project files' bytes, content-addressed: one record per chunk is all a key ever holds.
  const files = await opts.bus.kv({ name: FILES_BUCKET, history: 1 });
  const blobs = kvBlobs(files);
  let facts: DocumentFacts = { revision: null, document: null, context: { projects: [], seats: new Map() } };
  // Walked once per revision: every write and read asks for the projects and seats.
  const current = (): DocumentFacts => {
    const record = activeRevision(opts.configuration.view.state);
    const revision = record?.revision_id ?? null;
    if (revision === facts.revision) return facts;
    let document: unknown = null;
    try {
      document = record ? openDocument(opts.secrets.keyring, record.payload, record.revision_id) : null;
    } catch {
      // Boot refuses an active revision this node cannot open; a later one it cannot open reads as none.
      document = null;
    }
    const context = {
      projects: projectsOf(document),
      seats: seatKindsOf(document),
      notificationRateLimit: rateLimitOf(document),
    };
    facts = { revision, document, context };
    return facts;
  };
  const host = await startWorkHost({
    bus: opts.bus,
    view,
    context: () => current().context,
    nodeId: opts.config.node.id,
    logger,
    roster: opts.roster,
    ...(opts.wakes ? { wakes: opts.wakes } : {}),
  });
  // This node's acknowledgement of the work log it has applied (ops/work-tracker.md "Retention").
  const acks = startRetentionAcks({ bus: opts.bus, view, nodeId: opts.config.node.id, logger });
  // Bytes no listed file's version references any more leave the store (ops/work-tracker.md "Files").
  const sweep = startFileSweep({ bus: opts.bus, view, kv: files, logger });
  return {
    view,
    host,
    access: {
      state: () => view.state(),
      write: (w) => host.write(w),
      until: (seq, ms) => view.until(seq, ms),
    },
    projects: () => current().context.projects,
    routes: (auth) =>
      workRoutes({
        state: () => view.state(),
        unavailable: () => view.unavailable(),
        until: (seq, timeoutMs) => view.until(seq, timeoutMs),
        projects: () => current().context.projects,
        people: (): Person[] =>
          peopleOf(
            current().document,
            auth.tokens.map((t) => t.id),
            opts.secrets.resolve,
          ),
        seats: () => current().context.seats,
        write: (write) => sendCommand(opts.bus, Commands.work.write, write),
        retention: (cmd) => sendCommand(opts.bus, Commands.work.retention, cmd),
        roster: opts.roster,
        effectsAcknowledged: () => opts.bus.consumerAckFloor(Streams.Work, EFFECTS_DURABLE),
        blobs,
      }),
    stop: async () => {
      acks.stop();
      await sweep.stop();
      await host.stop();
      await view.stop();
    },
  };
}
