/**
 * Settings the schema accepts (documents written for the product the spec comes from carry them) but this
 * release does nothing with: each written one is a `not_applied` warning at its path on every write, dry run
 * and reload, never silent (ops/config.md "Settings without effect"). Refusing them would strand such
 * documents; the warning names what is missing instead. `notification_rate_limit` is applied (the router),
 * the `notification_coalesce_*` pair too (the seats' inbox batching), `skill_variables` fill the tool skills'
 * placeholders (ops/skills.md), `learning.personal_memory.max_refreshes_per_turn` caps a turn's `memory_recall`
 * calls, and `knowledge.wiki_spaces` belongs to the knowledge base. `providers.embeddings` is read (personal
 * memory ranks by it) unless its type is not built, its model is missing or `openai-compatible` has no endpoint;
 * a seat's `sandbox` is read but for keys beyond its three.
 */
import { RAW_EPISODES_HELD_MAX } from '../events/payloads/memory.js';
import { readEmbeddings } from './embeddings.js';
import type { Segment } from './problems.js';
import { TURN_ROUND_DEFAULTS } from './settings.schema.js';
import { unbuiltTransports } from './transports.js';
import { isRecord, walkDocument } from './walk.js';

export interface NotApplied {
  readonly segments: Segment[];
  readonly message: string;
}

const filled = (value: unknown): boolean =>
  isRecord(value) ? Object.keys(value).length > 0 : value !== undefined && value !== null;

const unbuilt: ReadonlyArray<{ segments: Segment[]; written: (v: unknown) => boolean; message: string }> = [
  {
    segments: ['extensions'],
    written: filled,
    message: 'not applied: this release registers no extensions, so no setting here is read; remove it',
  },
];

/** The value at `segments`, or undefined when a step on the way is not a map. */
function valueAt(doc: Record<string, unknown>, segments: Segment[]): unknown {
  let at: unknown = doc;
  for (const step of segments) at = isRecord(at) ? at[step] : undefined;
  return at;
}

function embeddingsWarnings(block: unknown): NotApplied[] {
  const read = readEmbeddings(block);
  return read.kind === 'unusable' ? [{ segments: ['providers', 'embeddings'], message: read.message }] : [];
}

/** A raw episode cap above what a seat's ledger holds (or none, 0) keeps that many all the same. */
function episodeCapWarnings(doc: Record<string, unknown>): NotApplied[] {
  const segments: Segment[] = ['learning', 'episode_lifecycle', 'max_raw_episodes_per_agent'];
  const cap = valueAt(doc, segments);
  if (typeof cap !== 'number' || (cap > 0 && cap <= RAW_EPISODES_HELD_MAX)) return [];
  const asked = cap === 0 ? 'no cap' : String(cap);
  return [
    {
      segments,
      message: `partly applied: a seat's episode ledger holds at most ${RAW_EPISODES_HELD_MAX} raw episodes, so ${asked} keeps ${RAW_EPISODES_HELD_MAX} (the oldest go past them)`,
    },
  ];
}

/**
 * `max_tool_rounds` is the base of both phases, clamped to each phase's ceiling (actors/seat/seat.limits.ts),
 * so one above a ceiling gives that phase less than it asks; an extension step does nothing unless extensions
 * are on.
 */
function turnEngineWarnings(block: unknown): NotApplied[] {
  if (!isRecord(block)) return [];
  const warnings: NotApplied[] = [];
  const base = block['max_tool_rounds'];
  if (typeof base === 'number') {
    const ceiling = (key: string, fallback: number): number => {
      const value = block[key];
      return typeof value === 'number' && value > 0 ? value : fallback;
    };
    const clamped = [
      ['plan', ceiling('plan_max_tool_rounds_ceiling', TURN_ROUND_DEFAULTS.plan_ceiling)],
      ['execute', ceiling('execute_max_tool_rounds_ceiling', TURN_ROUND_DEFAULTS.execute_ceiling)],
    ] as const;
    const over = clamped.filter(([, at]) => base > at);
    if (over.length > 0)
      warnings.push({
        segments: ['turn_engine', 'max_tool_rounds'],
        message: `partly applied: it is clamped to each phase's ceiling, so the ${over.map(([phase, at]) => `${phase} phase gets ${at}`).join(' and the ')}; raise the ceiling or lower this`,
      });
  }
  if (block['extension_round_step'] !== undefined && block['extension_enabled'] !== true)
    warnings.push({
      segments: ['turn_engine', 'extension_round_step'],
      message:
        'not applied: extension_enabled is not true, so no phase is extended; enable it or remove this',
    });
  return warnings;
}

/** What a seat's sandbox run reads (actors/sandbox/sandbox.settings.ts). */
const sandboxKeysRead: ReadonlySet<string> = new Set(['setup', 'env', 'default_coding_agent']);

/**
 * A sandbox key nothing reads: the schema keeps the block open (a newer build may read more), and types
 * `api_key` for redaction, so a typo (`setpu`) or a key given there rather than in `env` was stored in silence.
 */
function sandboxWarnings(doc: Record<string, unknown>): NotApplied[] {
  return walkDocument(doc).seats.flatMap((seat) => {
    const sandbox = seat.raw['sandbox'];
    if (!isRecord(sandbox)) return [];
    return Object.keys(sandbox)
      .filter((key) => !sandboxKeysRead.has(key))
      .map((key) => ({
        segments: [...seat.segments, 'sandbox', key],
        message:
          'not applied: a sandbox run reads setup, env and default_coding_agent only; give the coding agent a key through env, or remove this',
      }));
  });
}

/** The settings written in `doc` that have no effect in this release, or less than they ask. */
export function notAppliedSettings(doc: Record<string, unknown>): NotApplied[] {
  return [
    ...unbuilt
      .filter((u) => u.written(valueAt(doc, u.segments)))
      .map((u) => ({ segments: u.segments, message: u.message })),
    // Embeddings the node cannot compute (embeddings.ts): personal memory recalls by words instead.
    ...embeddingsWarnings(valueAt(doc, ['providers', 'embeddings'])),
    // ops/config.md "Notification batching": the batch size counts only while a window is set.
    ...(doc['notification_coalesce_max_batch'] !== undefined &&
    !(Number(doc['notification_coalesce_window_seconds'] ?? 0) > 0)
      ? [
          {
            segments: ['notification_coalesce_max_batch'],
            message:
              'not applied: no notification_coalesce_window_seconds is set, so no wakes are batched; set a window or remove this',
          },
        ]
      : []),
    ...episodeCapWarnings(doc),
    ...sandboxWarnings(doc),
    ...turnEngineWarnings(doc['turn_engine']),
    // A transport of a type not built here (transports.ts): stored, never sent.
    ...unbuiltTransports(doc['notification_transports']).map((name) => ({
      segments: ['notification_transports', name],
      message:
        'not applied: this release builds `webhook`, `chat`, `pager`, `email` and `sms` transports only, so nothing is sent through this one',
    })),
  ];
}
