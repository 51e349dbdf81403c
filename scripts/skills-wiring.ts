/**
 * Tool skills on one node (ops/skills.md): the sync that keeps each configured source's set in the
 * `svc_tool_skills` bucket, nudged by webhooks about the skills space or project, and the shelf the
 * `skill_list` / `skill_read` builtins read. Sources: the native knowledge base's container and the
 * wiki's space named by `SVC_TOOL_SKILLS_SPACE` (default `TS`), the tracker-b project named by
 * `SVC_TOOL_SKILLS_PROJECT` (default `TS`); an empty value switches that kind off.
 */
import type { Logger } from 'pino';
import {
  createSkillShelf,
  htmlToText,
  readTrackerBSkillPages,
  readWikiSkillPages,
  startSkillsSync,
  type SkillPlace,
  type SkillReader,
  type SkillShelf,
  type SkillsSync,
  type VendorSkillPage,
} from '../actors/index.js';
import { Buckets, Subjects, type Bus, type Kv, type Subscription } from '../bus/index.js';
import type { ActiveChart, PagesService } from '../projections/index.js';
import { isRecord, RawHeader, substituteDeep, withReferencesShown, type Resolver } from '../schema/index.js';

export interface Skills {
  readonly shelf: SkillShelf;
  /** The `svc_tool_skills` bucket (also where seats keep their learned skills). */
  readonly kv: Kv;
  readonly sync: SkillsSync;
  stop(): Promise<void>;
}

/** How long one vendor request may take. */
const VENDOR_TIMEOUT_MS = 15_000;

/** The skills space and project keys: `TS` unless the environment says otherwise (empty: off). */
export function skillKeys(env: NodeJS.ProcessEnv): { space: string | null; project: string | null } {
  const key = (value: string | undefined): string | null =>
    value === undefined ? 'TS' : value.trim() === '' ? null : value.trim();
  return { space: key(env['SVC_TOOL_SKILLS_SPACE']), project: key(env['SVC_TOOL_SKILLS_PROJECT']) };
}

const asText = (page: VendorSkillPage) => ({ ...page, body: htmlToText(page.html) });

/** An integration block of the active document, or null when absent or switched off (`enabled: false`). */
function block(document: unknown, name: string): Record<string, unknown> | null {
  const integrations = isRecord(document) ? document['integrations'] : undefined;
  const found = isRecord(integrations) ? integrations[name] : undefined;
  return isRecord(found) && found['enabled'] !== false ? found : null;
}

/**
 * A vendor read of `written` (an integration block as the document holds it): a failure's message names what
 * was called with the resolved settings (a workspace, a cloud id, a URL's path), so each value a `${VAR}`
 * resolved to is put back as the reference before the sync logs it (skills_sync_failed).
 */
async function readShowingReferences<T>(
  written: Record<string, unknown>,
  resolve: Resolver,
  read: (settings: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  try {
    return await read(substituteDeep(written, resolve) as Record<string, unknown>);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(withReferencesShown(message, written, resolve));
  }
}

function variablesOf(document: unknown): Record<string, string> {
  const given = isRecord(document) ? document['skill_variables'] : undefined;
  if (!isRecord(given)) return {};
  return Object.fromEntries(
    Object.entries(given).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

export async function startSkills(opts: {
  readonly bus: Bus;
  readonly logger: Logger;
  readonly chart: ActiveChart;
  /** The native knowledge base when this node runs it. */
  readonly pages: () => PagesService | null;
  /** Calls `listener` after every change of the native knowledge base; returns the unsubscribe. */
  readonly onPagesChange?: (listener: () => void) => () => void;
  readonly resolve: Resolver;
  /** The epoch of the active revision: a new one (another document) brings a full sync. */
  readonly epoch: () => number;
  readonly env?: NodeJS.ProcessEnv;
  /** How long after a webhook about the skills space the vendors are read (default 2 s). */
  readonly nudgeDelayMs?: number;
}): Promise<Skills> {
  const logger = opts.logger.child({ component: 'skills' });
  const kv = await opts.bus.kv({ name: Buckets.ToolSkills, history: 2 });
  const { space, project } = skillKeys(opts.env ?? process.env);
  const cloudApiUrl = (opts.env ?? process.env)['SVC_CLOUD_SITE_API_URL'] || undefined;
  const document = (): unknown => opts.chart()?.document ?? null;
  // What webhook deliveries name a tracker-b project by: its id, learnt on the last read.
  let trackerBProjectId: string | null = null;

  const readers = (): SkillReader[] | null => {
    if (opts.chart() === null) return null;
    const list: SkillReader[] = [];
    const pages = opts.pages();
    if (space !== null && pages !== null) {
      const container = space.toLowerCase();
      list.push({
        source: 'native',
        key: space,
        read: () =>
          Promise.resolve(
            [...pages.state().pages.values()]
              .filter((p) => p.container.toLowerCase() === container)
              .map((p) => ({ id: p.id, title: p.title, body: p.body, url: null, updated_at: p.updated_at })),
          ),
      });
    }
    const wiki = block(document(), 'wiki');
    if (space !== null && wiki !== null)
      list.push({
        source: 'wiki',
        key: space,
        read: () =>
          readShowingReferences(wiki, opts.resolve, async (settings) =>
            (await readWikiSkillPages(settings, space, VENDOR_TIMEOUT_MS, cloudApiUrl)).map(asText),
          ),
      });
    const trackerB = block(document(), 'tracker_b');
    if (project !== null && trackerB !== null)
      list.push({
        source: 'tracker-b',
        key: project,
        read: () =>
          readShowingReferences(trackerB, opts.resolve, async (settings) => {
            const read = await readTrackerBSkillPages(settings, project, VENDOR_TIMEOUT_MS);
            trackerBProjectId = read.projectId;
            return read.pages.map(asText);
          }),
      });
    return list;
  };

  const sync = startSkillsSync({
    kv,
    logger,
    readers,
    ...(opts.nudgeDelayMs !== undefined ? { nudgeDelayMs: opts.nudgeDelayMs } : {}),
  });
  const places = (): SkillPlace[] =>
    (readers() ?? []).map((r) => ({
      source: r.source,
      label:
        r.source === 'native'
          ? `knowledge base container ${r.key}`
          : r.source === 'wiki'
            ? `wiki space ${r.key}`
            : `tracker-b project ${r.key}`,
    }));
  const shelf = createSkillShelf({ kv, places, variables: () => variablesOf(document()) });

  // A delivery about a page of the skills space (or an item of the project) brings a read soon.
  const decoder = new TextDecoder();
  const nudgeOn = (msg: {
    readonly data: Uint8Array;
    readonly headers: Readonly<Record<string, string>>;
  }): void => {
    // The integration host names the pipeline in a header: a delivery no nudge can come of is not decoded
    // (every delivery passes here). Without the header, the body decides.
    const pipeline = msg.headers[RawHeader.Pipeline];
    if (pipeline !== undefined) {
      const wiki = pipeline === 'wiki' && space !== null;
      const trackerB = pipeline === 'tracker-b' && trackerBProjectId !== null;
      if (!wiki && !trackerB) return;
    }
    try {
      const n = JSON.parse(decoder.decode(msg.data)) as { pipeline?: unknown; subject?: { space?: unknown } };
      const about = typeof n.subject?.space === 'string' ? n.subject.space : null;
      if (about === null) return;
      if (n.pipeline === 'wiki' && space !== null && about.toLowerCase() === space.toLowerCase())
        sync.nudge();
      if (n.pipeline === 'tracker-b' && about === trackerBProjectId) sync.nudge();
    } catch {
      // Not a notification this build reads: no nudge; the periodic read still comes.
    }
  };
  // Only where a space or project is named: otherwise every delivery would be decoded for nothing.
  const nudges: Subscription | null =
    space === null && project === null ? null : opts.bus.subscribe(Subjects.notificationsInbound, nudgeOn);
  const unfollowPages = opts.onPagesChange?.(() => sync.nudgeNative()) ?? (() => undefined);
  let syncedEpoch = -1;
  const followDocument = setInterval(() => {
    const epoch = opts.epoch();
    if (epoch === syncedEpoch || epoch === 0) return;
    syncedEpoch = epoch;
    void sync.syncNow();
  }, 2_000);
  followDocument.unref();
  return {
    shelf,
    kv,
    sync,
    async stop() {
      clearInterval(followDocument);
      unfollowPages();
      await nudges?.stop();
      await sync.stop();
    },
  };
}
