/**
 * Settings the schema accepts (documents written for the product the spec comes from carry them) but this
 * release does nothing with: each written one is a `not_applied` warning at its path on every write, dry run
 * and reload, never silent (ops/config.md "Settings without effect"). Refusing them would strand such
 * documents; the warning names what is missing instead. `notification_rate_limit` is applied (the router),
 * the `notification_coalesce_*` pair too (the seats' inbox batching), `skill_variables` fill the tool skills'
 * placeholders (ops/skills.md), and `knowledge.wiki_spaces` belongs to the knowledge base.
 */
import type { Segment } from './problems.js';
import { unbuiltTransports } from './transports.js';
import { isRecord } from './walk.js';

export interface NotApplied {
  readonly segments: Segment[];
  readonly message: string;
}

const filled = (value: unknown): boolean =>
  isRecord(value) ? Object.keys(value).length > 0 : value !== undefined && value !== null;

const unbuilt: ReadonlyArray<{ key: string; written: (v: unknown) => boolean; message: string }> = [
  {
    key: 'extensions',
    written: filled,
    message: 'not applied: this release registers no extensions, so no setting here is read; remove it',
  },
];

/** The settings written in `doc` that have no effect in this release. */
export function notAppliedSettings(doc: Record<string, unknown>): NotApplied[] {
  return [
    ...unbuilt.filter((u) => u.written(doc[u.key])).map((u) => ({ segments: [u.key], message: u.message })),
    // A transport of a type not built here (transports.ts): stored, never sent.
    ...unbuiltTransports(doc['notification_transports']).map((name) => ({
      segments: ['notification_transports', name],
      message:
        'not applied: this release builds `webhook`, `chat`, `pager`, `email` and `sms` transports only, so nothing is sent through this one',
    })),
  ];
}
