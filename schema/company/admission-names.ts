/**
 * Admission rules A13 and A14 (admission.ts): an identifying name past its bound. The company, unit and seat
 * names are read by people in rosters, feed lines and the dashboard, and a unit's is its address
 * (`/config/units/{name}`); a tool-server name and a provider key are entity addresses too
 * (`/config/mcp-servers/{name}`, `/config/llm-providers/{key}`). A13 is length only: their grammar, where they
 * have one, is the shape check's, and the spec's plain strings keep any character. A14 bounds the names added
 * since with their nearest sibling's bound, and keeps them to one line: a notification transport's and an
 * extension's name (map keys, as a provider key: 64) and a native project's display name (the unit's name
 * when unset: 100). Admission rules, so a revision an earlier release stored with a longer name still boots,
 * applies and reloads. A15 (a `skill_variables` name no `{{name}}` placeholder can spell) is a key rule too.
 */
import { hasControlOrLoneSurrogate } from '../text-grammars.js';
import { ProblemKind, type Segment } from './problems.js';
import { asList, type RuleContext } from './rule-context.js';
import { isRecord } from './walk.js';

/** The longest company, unit and seat name (and project display name) a new write may carry. */
const MAX_DISPLAY_NAME = 100;
/** The longest tool-server name and map key (provider, transport, extension) a new write may carry: a seat handle's bound. */
const MAX_ENTITY_KEY = 64;

const ONE_LINE = 'one line of text: no control characters or lone surrogates';

/** Refuses `value` at `segments` when it is a string longer than `max`; never quotes it. */
function bounded(ctx: RuleContext, segments: Segment[], value: unknown, max: number): void {
  if (typeof value === 'string' && value.length > max)
    ctx.admission(segments, ProblemKind.OutOfRange, `at most ${max} characters`);
}

/**
 * A rule on the keys of a map. A key is its own path, so the problem sits on the map and the answer never
 * carries the key; ratcheting (ratchet.ts) then holds it while every key that breaks it was in the active
 * revision's map, so an edit of another entry of the map goes through.
 */
export interface KeyRule {
  readonly path: string;
  readonly kind: ProblemKind;
  readonly message: string;
  readonly offends: (key: string) => boolean;
}

const tooLong = (key: string): boolean => key.length > MAX_ENTITY_KEY;
/** A `{{name}}` placeholder's name, as the skills reader matches it (actors/skills/skills.text.ts). */
const placeholderName = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const keyRules: readonly KeyRule[] = [
  {
    path: 'providers.llm',
    kind: ProblemKind.OutOfRange,
    message: `a provider key is at most ${MAX_ENTITY_KEY} characters`,
    offends: tooLong,
  },
  ...(
    [
      ['notification_transports', 'a transport name'],
      ['extensions', 'an extension name'],
    ] as const
  ).flatMap(([path, what]): KeyRule[] => [
    {
      path,
      kind: ProblemKind.OutOfRange,
      message: `${what} is at most ${MAX_ENTITY_KEY} characters`,
      offends: tooLong,
    },
    { path, kind: ProblemKind.Shape, message: `${what} is ${ONE_LINE}`, offends: hasControlOrLoneSurrogate },
  ]),
  // A15: a variable no placeholder can name is never filled.
  {
    path: 'skill_variables',
    kind: ProblemKind.Invalid,
    message:
      'a variable name is letters, digits and _, not starting with a digit, as a skill writes its {{name}} placeholder; any other is never filled',
    offends: (key) => !placeholderName.test(key),
  },
];

/** The map at a dotted path of plain keys. */
const mapAt = (doc: unknown, path: string): Record<string, unknown> | null => {
  const at = path.split('.').reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), doc);
  return isRecord(at) ? at : null;
};

export function nameRules(ctx: RuleContext): void {
  // A13
  bounded(ctx, ['name'], ctx.doc['name'], MAX_DISPLAY_NAME);
  for (const unit of ctx.walk.units)
    bounded(ctx, [...unit.segments, 'name'], unit.raw['name'], MAX_DISPLAY_NAME);
  for (const seat of ctx.walk.seats)
    bounded(ctx, [...seat.segments, 'name'], seat.raw['name'], MAX_DISPLAY_NAME);
  asList(ctx.doc['mcp_servers']).forEach((server, i) => {
    if (isRecord(server)) bounded(ctx, ['mcp_servers', i, 'name'], server['name'], MAX_ENTITY_KEY);
  });
  // A13 (provider keys) and A14 (transport and extension names)
  for (const rule of keyRules) {
    const map = mapAt(ctx.doc, rule.path);
    if (map !== null && Object.keys(map).some(rule.offends))
      ctx.admission(rule.path.split('.'), rule.kind, rule.message);
  }
  // A14 (a native project's display name)
  for (const unit of ctx.walk.units) {
    const integrations = unit.raw['integrations'];
    const work = isRecord(integrations) ? integrations['work'] : undefined;
    const name = isRecord(work) ? work['name'] : undefined;
    const at = [...unit.segments, 'integrations', 'work', 'name'];
    bounded(ctx, at, name, MAX_DISPLAY_NAME);
    if (typeof name === 'string' && hasControlOrLoneSurrogate(name))
      ctx.admission(at, ProblemKind.Shape, ONE_LINE);
  }
}
