/**
 * Configuration revisions on the bus (spec "Configuration revision", "Revision activation"): the
 * stored record, the fleet-wide active pointer, the activation and apply events, and the write
 * command the gateway sends to the config writer with its reply.
 */
import { z } from 'zod';

const instant = z.string().datetime({ offset: true });
const uuid = z.string().uuid();

/** Who made a revision; unknown future kinds arrive as themselves. */
export const CreatedByKind = z.union([z.enum(['operator', 'node']), z.string().min(1)]);

export const RevisionSource = z.union([
  z.enum(['api', 'cli', 'api.revert', 'api.entity', 'api.reload']),
  z.string().min(1),
]);

/** One stored revision: appended once to SVC_CONFIG, never changed. */
export const RevisionRecord = z.object({
  revision_id: uuid,
  parent_revision_id: uuid.nullable(),
  created_at: instant,
  created_by: z.string().min(1),
  created_by_kind: CreatedByKind,
  source: RevisionSource,
  summary: z.string(),
  /** The company document, or `{"__encrypted__": "enc:v1:<key_id>:<base64>"}` when sealed. */
  payload: z.unknown(),
});
export type RevisionRecord = z.infer<typeof RevisionRecord>;

/**
 * Header of a stored revision's message: its record without `payload`, as JSON. A replay that needs only
 * metadata reads this and leaves the document unread, so a node's boot does not read its whole history.
 */
export const revisionHeadHeader = 'Svc-Revision-Head';

/** Revision metadata: the record without its payload (listings, `config_audit`). */
export type RevisionMeta = Omit<RevisionRecord, 'payload'> & {
  is_active: boolean;
  activated_at: string | null;
};

/** The active pointer in the coordination store: which revision, at which fleet epoch. */
export const ActivePointer = z.object({
  revision_id: uuid,
  parent_revision_id: uuid.nullable(),
  epoch: z.number().int().positive(),
  activated_at: instant,
});
export type ActivePointer = z.infer<typeof ActivePointer>;

export const ApplyStatus = { Applied: 'applied', Unchanged: 'unchanged', Failed: 'failed' } as const;
export type ApplyStatus = (typeof ApplyStatus)[keyof typeof ApplyStatus];

/** `svc.config.revision_applied`: one node's outcome of applying one activation. */
export const RevisionApplied = z.object({
  node: z.string(),
  revision_id: uuid,
  epoch: z.number().int().positive(),
  status: z.enum([ApplyStatus.Applied, ApplyStatus.Unchanged, ApplyStatus.Failed]),
  applied_subsystems: z.array(z.string()),
  error: z.string().optional(),
  /** On a failure, the posture it left the node in (`isolated` rolled back, `stuck` not); absent before. */
  posture: z.enum(['isolated', 'stuck', 'shed']).optional(),
  at: instant,
});
export type RevisionApplied = z.infer<typeof RevisionApplied>;

/**
 * Subsystems in the order a node applies them (spec "States and transitions"). The spec's last step,
 * "restart-required items", is named for what it does: `tool_servers` (each server whose entry changed
 * is restarted, nothing else), then `seat_inboxes` (seats spawned by this apply start taking wakes), so
 * no log line or `applied_subsystems` entry reads as if the node needed a restart.
 */
export const ApplyOrder = [
  'org',
  'budgets',
  'turn_engine',
  'providers',
  'scalars',
  'tool_servers',
  'seat_inboxes',
] as const;
export type Subsystem = (typeof ApplyOrder)[number];

// ---------------------------------------------------------------- write command

export const WritePrecondition = z.object({
  /** `If-Match`: a revision id (quotes already removed) or `*`. */
  if_match: z.string().min(1).optional(),
  /** `If-None-Match: *` (create only). */
  if_none_match_any: z.boolean().default(false),
  /**
   * The revision ids an `If-None-Match` lists (quotes and weakness removed, a revision read's tag as its
   * id): the writer refuses the write when one is the active revision, deciding on the pointer its
   * compare-and-set replaces (a write activated in between makes it lose, and is judged by the same rule).
   */
  if_none_match: z.array(uuid).max(256).optional(),
  /**
   * A create-only entity PUT (`If-None-Match: *` on `/config/<kind>/<id>`): a write that loses to another
   * (stale basis or lost compare-and-set) is 412 `entity_exists` when the revision it lost to holds the
   * entry, judged by the writer on that revision's document (two racing creates cannot both pass).
   */
  if_entity_absent: z
    .object({ kind: z.enum(['roles', 'units', 'llm-providers', 'mcp-servers']), id: z.string().min(1) })
    .optional(),
});

/** `Commands.config.write`: store (and try to activate) a full document the gateway prepared. */
export const ConfigWrite = z.object({
  /** The document to store: already merged (PATCH), spliced (entity PUT) or copied (revert, reload). */
  document: z.unknown(),
  /** The active revision the gateway derived `document` from; null when nothing was active. */
  basis_revision_id: uuid.nullable(),
  precondition: WritePrecondition,
  /** `write` checks every rule; `runnable` (reload, revert) skips admission rules. */
  rules: z.enum(['write', 'runnable']),
  dry_run: z.boolean(),
  actor: z.object({ id: z.string().min(1), kind: CreatedByKind }),
  source: RevisionSource,
  summary: z.string(),
  /** Problems found by the gateway before the document existed (for example a YAML parse). */
  yaml_text: z.string().optional(),
  /**
   * Paths of keys this build does not know that the stored document already held (a newer build wrote
   * them; write rule 8): validation lets them pass, any other unknown key is still refused.
   */
  carried: z.array(z.array(z.union([z.string(), z.number()]))).optional(),
  /**
   * The id the revision is stored under, chosen by the sender so that a write whose outcome is unknown
   * can name it (`outcome_unknown`); the writer picks one when absent.
   */
  revision_id: uuid.optional(),
});
export type ConfigWrite = z.infer<typeof ConfigWrite>;

/** Problems and warnings travel as the company validator shapes them. */
const Finding = z.record(z.string(), z.unknown());

export const ConfigWriteReply = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('stored'),
    revision_id: uuid,
    epoch: z.number().int().positive(),
    warnings: z.array(Finding),
    derived: z.unknown(),
  }),
  z.object({
    outcome: z.literal('valid'),
    base_revision_id: z.string(),
    warnings: z.array(Finding),
    derived: z.unknown(),
  }),
  z.object({
    outcome: z.literal('refused'),
    /** A catalogued error code (`validation_error`, `revision_advanced`, `already_configured`, ...). */
    error: z.string(),
    status: z.number().int(),
    detail: z.string(),
    problems: z.array(Finding).optional(),
    derived: z.unknown().optional(),
    stored_revision_id: uuid.optional(),
  }),
]);
export type ConfigWriteReply = z.infer<typeof ConfigWriteReply>;
