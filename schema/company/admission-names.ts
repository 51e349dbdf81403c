/**
 * Admission rule A13 (admission.ts): an identifying name past its bound. The company, unit and seat
 * names are read by people in rosters, feed lines and the dashboard, and a unit's is its address
 * (`/config/units/{name}`); a tool-server name and a provider key are entity addresses too
 * (`/config/mcp-servers/{name}`, `/config/llm-providers/{key}`). Length only: their grammar, where they
 * have one, is the shape check's, and the spec's plain strings keep any character. An admission rule,
 * so a revision an earlier release stored with a longer name still boots, applies and reloads.
 */
import { ProblemKind, type Segment } from './problems.js';
import { asList, type RuleContext } from './rule-context.js';
import { isRecord } from './walk.js';

/** The longest company, unit and seat name a new write may carry. */
const MAX_DISPLAY_NAME = 100;
/** The longest tool-server name and provider key a new write may carry: a seat handle's bound. */
const MAX_ENTITY_KEY = 64;

/** Refuses `value` at `segments` when it is a string longer than `max`; never quotes it. */
function bounded(ctx: RuleContext, segments: Segment[], value: unknown, max: number): void {
  if (typeof value === 'string' && value.length > max)
    ctx.admission(segments, ProblemKind.OutOfRange, `at most ${max} characters`);
}

export function nameRules(ctx: RuleContext): void {
  bounded(ctx, ['name'], ctx.doc['name'], MAX_DISPLAY_NAME);
  for (const unit of ctx.walk.units)
    bounded(ctx, [...unit.segments, 'name'], unit.raw['name'], MAX_DISPLAY_NAME);
  for (const seat of ctx.walk.seats)
    bounded(ctx, [...seat.segments, 'name'], seat.raw['name'], MAX_DISPLAY_NAME);
  asList(ctx.doc['mcp_servers']).forEach((server, i) => {
    if (isRecord(server)) bounded(ctx, ['mcp_servers', i, 'name'], server['name'], MAX_ENTITY_KEY);
  });
  // A key is its own path: the problem sits on the map, so the answer never carries the key.
  const providers = ctx.doc['providers'];
  const llm = isRecord(providers) ? providers['llm'] : undefined;
  if (isRecord(llm) && Object.keys(llm).some((key) => key.length > MAX_ENTITY_KEY))
    ctx.admission(
      ['providers', 'llm'],
      ProblemKind.OutOfRange,
      `a provider key is at most ${MAX_ENTITY_KEY} characters`,
    );
}
