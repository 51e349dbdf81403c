/**
 * Pages and work items -> tool skills, and a skill's text as a seat reads it. Pure.
 */
import {
  SKILL_CONTENT_MAX,
  SKILL_DESCRIPTION_MAX,
  SKILL_NAME_MAX,
  SKILL_SET_BYTES_MAX,
  SKILLS_PER_SOURCE,
  type SkillSet,
  type SkillSource,
  type ToolSkill,
} from '../../schema/index.js';
import { clip } from '../text.js';

/** A page or item as a source gives it, its body already plain text or Markdown. */
export interface SkillPage {
  readonly id: string;
  readonly title: string;
  readonly body: string;
  readonly url: string | null;
  readonly updated_at: string | null;
}

/** The first line of prose: headings, fences, rules and list markers skipped or stripped. */
export function descriptionOf(body: string): string {
  let fenced = false;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('```') || line.startsWith('~~~')) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line === '' || line.startsWith('#') || /^([-*_])\1{2,}$/.test(line)) continue;
    const prose = line
      .replace(/^([-*+]|\d+[.)])\s+/, '')
      .replace(/[*`]+/g, '')
      // Underscores only where they mark emphasis: `{{site_url}}` and snake_case names keep theirs.
      .replace(/(^|[^\w{])_+|_+(?=[^\w}]|$)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim();
    if (prose !== '') return clip(prose, SKILL_DESCRIPTION_MAX);
  }
  return '';
}

export function skillOf(page: SkillPage): ToolSkill | null {
  const name = page.title.replace(/\s+/g, ' ').trim();
  if (name === '') return null;
  const body = page.body.replace(/\r\n?/g, '\n').trim();
  return {
    name: clip(name, SKILL_NAME_MAX),
    description: descriptionOf(body),
    content: body.length > SKILL_CONTENT_MAX ? body.slice(0, SKILL_CONTENT_MAX) : body,
    truncated: body.length > SKILL_CONTENT_MAX,
    source_id: page.id,
    url: page.url,
    updated_at: page.updated_at,
  };
}

const nameKey = (name: string): string => name.toLowerCase();
/** An instant as milliseconds (vendors write offsets, not always `Z`); unknown ones sort oldest. */
const msOf = (at: string | null): number => {
  const ms = at === null ? NaN : Date.parse(at);
  return Number.isNaN(ms) ? 0 : ms;
};

/**
 * The leading entries of `items` whose JSON fits `maxBytes` together: a set written to one bucket value must
 * fit a JetStream message (1 MiB by default) whatever script its text is in.
 */
export function fitBytes<T>(items: readonly T[], maxBytes = SKILL_SET_BYTES_MAX): T[] {
  const kept: T[] = [];
  let bytes = 0;
  for (const item of items) {
    bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
    if (bytes > maxBytes) break;
    kept.push(item);
  }
  return kept;
}

/**
 * A source's set: newest first, one skill per name (case aside; the newest page keeps it), at most
 * SKILLS_PER_SOURCE and `maxBytes` encoded; what is left out is counted.
 */
export function skillSet(
  source: SkillSource,
  key: string,
  pages: readonly SkillPage[],
  now: Date,
  maxBytes = SKILL_SET_BYTES_MAX,
): SkillSet {
  const newestFirst = pages
    .map(skillOf)
    .filter((s): s is ToolSkill => s !== null)
    .sort((a, b) => msOf(b.updated_at) - msOf(a.updated_at) || a.name.localeCompare(b.name));
  const seen = new Set<string>();
  const skills: ToolSkill[] = [];
  let leftOut = 0;
  let bytes = 0;
  for (const skill of newestFirst) {
    const size = Buffer.byteLength(JSON.stringify(skill)) + 1;
    if (seen.has(nameKey(skill.name)) || skills.length >= SKILLS_PER_SOURCE || bytes + size > maxBytes) {
      leftOut += 1;
      continue;
    }
    seen.add(nameKey(skill.name));
    skills.push(skill);
    bytes += size;
  }
  skills.sort((a, b) => a.name.localeCompare(b.name));
  return { source, key, synced_at: now.toISOString(), skills, left_out: leftOut };
}

/** Whether two sets hold the same skills (the sync time aside): an unchanged set is not written again. */
export function sameSkills(a: SkillSet | null, b: SkillSet): boolean {
  if (a === null) return false;
  const strip = (s: SkillSet) => JSON.stringify({ ...s, synced_at: '' });
  return strip(a) === strip(b);
}

/** `{{name}}` placeholders replaced by the company's `skill_variables`; unknown ones are left as written. */
export function withVariables(content: string, variables: Readonly<Record<string, string>>): string {
  return content.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(variables, name) ? (variables[name] ?? '') : whole,
  );
}

const entities: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code.startsWith('#')) {
      const n =
        code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
    }
    return entities[code.toLowerCase()] ?? whole;
  });
}

/**
 * A wiki page's storage format or a tracker item's HTML description as readable text: block ends become
 * line breaks, list items `- `, headings `#`, code blocks (CDATA bodies) kept verbatim in fences.
 */
export function htmlToText(html: string): string {
  const blocks: string[] = [];
  const withCode = html.replace(/\u0000/g, '').replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, code: string) => {
    blocks.push(code);
    return `\u0000${blocks.length - 1}\u0000`;
  });
  const text = withCode
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '')
    .replace(/<h([1-6])\b[^>]*>/gi, (_, level: string) => `\n${'#'.repeat(Number(level))} `)
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|ul|ol|tr|table|pre|blockquote)>/gi, '\n')
    .replace(/<[^>]*>/g, '');
  return decodeEntities(text)
    .replace(/\u0000(\d+)\u0000/g, (_, i: string) => `\n\`\`\`\n${blocks[Number(i)] ?? ''}\n\`\`\`\n`)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
