/**
 * Reads the pages of a tool-skills space from the wiki (REST API, self-hosted or cloud: site-api.ts) and the
 * work items of a tool-skills project from tracker-b (REST API v1, `X-API-Key`), for the skills sync
 * (actors/skills). Bodies come back as the vendor's HTML; failures are VendorErrors in our words.
 */
import { objectAt, listOf } from './pass-context.js';
import { siteApi } from './site-api.js';
import { baseUrl, credential, vendorCall, VendorError } from './vendor-http.js';

export interface VendorSkillPage {
  readonly id: string;
  readonly title: string;
  /** The body as the vendor stores it: wiki storage format or tracker-b `description_html`. */
  readonly html: string;
  readonly url: string | null;
  readonly updated_at: string | null;
}

/**
 * The most of one answer read: a page of 50 wiki pages or 100 work items carries their bodies, so far
 * more than a setup pass's list (whose default cap is 1 MiB), but still bounded.
 */
const SKILLS_ANSWER_MAX_BYTES = 16 * 1024 * 1024;
/** Pages read at most from one source per sync (the skills set keeps 100 of them). */
const PAGES_READ_MAX = 500;
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const idOf = (value: unknown): string | null =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : null;

/**
 * Every current page of the wiki space `space` with its body: from a self-hosted site, or from the cloud
 * edition through its API gateway (site-api.ts; `cloudApiUrl` overrides the gateway).
 */
export async function readWikiSkillPages(
  settings: Readonly<Record<string, unknown>>,
  space: string,
  timeoutMs: number,
  cloudApiUrl?: string,
): Promise<VendorSkillPage[]> {
  const { base, headers } = siteApi('wiki', settings, cloudApiUrl);
  const pages: VendorSkillPage[] = [];
  const limit = 50;
  for (let start = 0; start < PAGES_READ_MAX; start += limit) {
    const query = new URLSearchParams({
      spaceKey: space,
      type: 'page',
      status: 'current',
      expand: 'body.storage,version',
      start: String(start),
      limit: String(limit),
    });
    const answer = await vendorCall(
      'wiki',
      `${base}/rest/api/content?${query.toString()}`,
      { headers, maxBytes: SKILLS_ANSWER_MAX_BYTES },
      timeoutMs,
    );
    const results = listOf(answer.json);
    // Links are relative to the site the answer names (a cloud site's own address, not the gateway's).
    const site = str(objectAt(answer.json, '_links')['base'])?.replace(/\/+$/, '') ?? base;
    for (const page of results) {
      const id = idOf(page['id']);
      const title = str(page['title']);
      if (id === null || title === null) continue;
      const webui = str(objectAt(page, '_links')['webui']);
      pages.push({
        id,
        title,
        html: str(objectAt(objectAt(page, 'body'), 'storage')['value']) ?? '',
        url: webui === null ? null : webui.startsWith('http') ? webui : `${site}${webui}`,
        updated_at: str(objectAt(page, 'version')['when']),
      });
    }
    if (results.length < limit) break;
  }
  return pages;
}

/**
 * Every open (not archived) work item of the tracker-b project whose identifier is `project`, and the
 * project's id (what its webhook deliveries name).
 */
export async function readTrackerBSkillPages(
  settings: Readonly<Record<string, unknown>>,
  project: string,
  timeoutMs: number,
): Promise<{ projectId: string; pages: VendorSkillPage[] }> {
  const workspace = settings['workspace'];
  if (typeof workspace !== 'string' || workspace === '')
    throw new VendorError('tracker-b: workspace is not set');
  const site = baseUrl('tracker-b', settings['url']);
  const base = `${site}/api/v1/workspaces/${encodeURIComponent(workspace)}`;
  const headers = { 'X-API-Key': credential('tracker-b', 'token', settings['token']) };
  const call = (path: string) =>
    vendorCall('tracker-b', `${base}${path}`, { headers, maxBytes: SKILLS_ANSWER_MAX_BYTES }, timeoutMs);
  const found = listOf((await call('/projects/')).json).find(
    (p) => str(p['identifier'])?.toUpperCase() === project.toUpperCase(),
  );
  const projectId = idOf(found?.['id']);
  if (projectId === null) throw new VendorError(`tracker-b: no project ${project} in workspace ${workspace}`);
  const items: VendorSkillPage[] = [];
  let cursor: string | null = null;
  let asked = 0;
  do {
    asked += 1;
    const query = new URLSearchParams({ per_page: '100', ...(cursor !== null ? { cursor } : {}) });
    const answer = await call(`/projects/${encodeURIComponent(projectId)}/issues/?${query.toString()}`);
    for (const item of listOf(answer.json)) {
      const id = idOf(item['id']);
      const title = str(item['name']);
      if (id === null || title === null || item['archived_at'] || item['deleted_at']) continue;
      items.push({
        id,
        title,
        html: str(item['description_html']) ?? escapeText(str(item['description_stripped']) ?? ''),
        url: `${site}/${encodeURIComponent(workspace)}/projects/${encodeURIComponent(projectId)}/issues/${encodeURIComponent(id)}`,
        updated_at: str(item['updated_at']),
      });
    }
    const page = objectAt({ a: answer.json }, 'a');
    cursor = page['next_page_results'] === true ? str(page['next_cursor']) : null;
  } while (cursor !== null && items.length < PAGES_READ_MAX && asked < 20);
  return { projectId, pages: items };
}

/** Plain text as HTML, so every body takes the same way to text. */
const escapeText = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\n', '<br>');
