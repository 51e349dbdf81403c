import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import {
  admissionOf,
  categoryOf,
  EventCategory,
  EventTypeCategories,
  ExcludedEventTypes,
  isFeedType,
  isStoredType,
  recordCategoryOf,
} from '../../schema/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourceDirs = ['actors', 'bus', 'http', 'projections', 'schema', 'scripts'];

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...tsFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Type literals the code publishes: `type: '...'` inside a `newEvent({...})` call, and `EventType.X = '...'` registries. */
export function publishedTypes(text: string): string[] {
  const out: string[] = [];
  const call = /newEvent\(\s*\{/g;
  for (let m = call.exec(text); m; m = call.exec(text)) {
    // The object literal up to its closing brace at depth 0.
    let depth = 0;
    let end = m.index + m[0].length - 1;
    for (; end < text.length; end++) {
      if (text[end] === '{') depth++;
      else if (text[end] === '}' && --depth === 0) break;
    }
    const body = text.slice(m.index, end);
    const type = /\btype:\s*['"`]([^'"`]+)['"`]/.exec(body);
    if (type) out.push(type[1]!);
  }
  return out;
}

const everyMapped = new Set([...Object.keys(EventTypeCategories), ...Object.keys(ExcludedEventTypes)]);

t.test('every type passed to newEvent in the source is named by one of the two maps', async (t) => {
  const found = new Map<string, string>();
  for (const dir of sourceDirs)
    for (const file of tsFiles(join(root, dir)))
      for (const type of publishedTypes(readFileSync(file, 'utf8'))) found.set(type, file);
  for (const [type, file] of found) t.ok(everyMapped.has(type), `${type} (published in ${file}) is mapped`);
  t.pass(`${found.size} published type literals checked`);
});

t.test('the scanner finds a type literal inside a newEvent call', async (t) => {
  const text = `publishEvent(bus, newEvent({ category: 'task', type: 'TaskCreated', payload: { type: 'x' } }));`;
  t.same(publishedTypes(text), ['TaskCreated']);
});

t.test('ops/event-types.md lists exactly the mapped types', async (t) => {
  const md = readFileSync(join(root, 'ops', 'event-types.md'), 'utf8');
  const listed = new Set<string>();
  for (const line of md.split('\n')) {
    const m = /^\| ([A-Za-z0-9_.]+) \|/.exec(line);
    if (m && m[1] !== 'type') listed.add(m[1]!);
  }
  for (const type of listed) t.ok(everyMapped.has(type), `${type} from ops/event-types.md is in a map`);
  for (const type of everyMapped) t.ok(listed.has(type), `${type} is listed in ops/event-types.md`);
  for (const [type, category] of Object.entries(EventTypeCategories)) {
    t.match(
      md,
      new RegExp(`\\| ${type.replace('.', '\\.')} \\| ${category} \\|`),
      `${type} is listed as ${category}`,
    );
  }
});

t.test('every type the spec names has a place', async (t) => {
  const named = [
    'agent_turn_progress',
    'agent_phase_started',
    'agent_phase_completed',
    'agent_turn_completed',
    'auxiliary_spend',
    'chat_message_received',
    'sandbox_run_failed',
    'llm_unavailable',
    'budget_exhausted',
    'turn.guard_breach',
    'alarm_raised',
    'alarm_cleared',
    'TaskCreated',
    'TaskAssigned',
    'TaskCompleted',
    'TaskDelegated',
    'NotificationSkipped',
    'ConfigRevisionApplied',
    'provider_fallback',
    'schedule_fired',
    'webhook_received',
  ];
  for (const type of named) t.ok(everyMapped.has(type), type);
});

t.test('categories come from the closed set of eight', async (t) => {
  const eight = new Set(Object.values(EventCategory));
  t.equal(eight.size, 8);
  for (const [type, category] of Object.entries(EventTypeCategories))
    t.ok(eight.has(category), `${type}: ${category}`);
});

t.test('agent_turn_progress is emitted, never stored, never a feed row', async (t) => {
  t.equal(categoryOf('agent_turn_progress'), null, 'not in the admission map');
  t.equal(
    recordCategoryOf('agent_turn_progress'),
    'lifecycle',
    'its frame carries what its exclusion declares',
  );
  t.notOk(isStoredType('agent_turn_progress'));
  t.notOk(isFeedType('agent_turn_progress'));
  t.equal(admissionOf('agent_turn_progress'), 'emit');
});

t.test('a type pushed but never stored declares the category its record carries', async (t) => {
  for (const [type, excluded] of Object.entries(ExcludedEventTypes)) {
    if (excluded.stored) t.equal(recordCategoryOf(type), categoryOf(type), `${type}: the map's`);
    else t.ok(excluded.category !== undefined && recordCategoryOf(type) === excluded.category, type);
  }
});

t.test('auxiliary_spend is stored but never a feed row', async (t) => {
  t.ok(isStoredType('auxiliary_spend'));
  t.notOk(isFeedType('auxiliary_spend'));
  t.equal(admissionOf('auxiliary_spend'), 'store');
});

t.test('a type without a category is refused, prototype names included', async (t) => {
  for (const type of ['made_up', 'constructor', '__proto__', 'toString']) {
    t.equal(categoryOf(type), null, type);
    t.equal(recordCategoryOf(type), null, type);
    t.equal(admissionOf(type), 'refused', type);
  }
  t.ok(isFeedType('TaskCreated'));
});
