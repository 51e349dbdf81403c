/**
 * The catalogue's codes of the native work tracker and knowledge base (`/work*`, `/pages*`, `/containers`,
 * the retention gestures): part of the one closed catalogue in errors.ts.
 */
import type { ErrorEntry } from './errors.types.js';

export const workErrors = {
  precondition_failed: {
    status: 412,
    when: 'a work item or page create (`POST /work`, `POST /pages`), or a file write where no file is, sent with `If-Match`: what it would make has no version yet to match',
    detail: 'If-Match names a version, but a create makes something that has none yet.',
    hint: 'Drop If-Match on a create; send it on a later write with the version its ETag gave.',
    retryable: false,
  },
  no_container: {
    status: 404,
    when: 'a knowledge route names a container the org chart does not declare',
    detail: 'No such knowledge container.',
    hint: 'List containers with `GET /containers`; a unit declares one with `integrations.wiki.space`, the org with `knowledge.wiki_spaces`.',
    retryable: false,
  },
  page_title_taken: {
    status: 409,
    when: 'a page write whose title another page of the container holds (case and whitespace runs ignored)',
    detail: 'Another page of this container has that title.',
    hint: 'Choose another title, or update the page that holds it.',
    retryable: false,
  },
  page_conflict: {
    status: 409,
    when: "a page update or delete whose `base_version` (or `If-Match`) is not the page's current version",
    detail: 'The page changed since the version this write was based on.',
    hint: 'Read the page again, re-apply the change, and send it with the new version.',
    retryable: false,
  },
  page_has_children: {
    status: 409,
    when: 'deleting a page that still has child pages',
    detail: 'The page has child pages.',
    hint: 'Move or delete its children first.',
    retryable: false,
  },
  page_parent_invalid: {
    status: 409,
    when: 'a parent page in another container, or the page itself or one of its descendants',
    detail: 'That page cannot be the parent.',
    hint: 'Choose a parent in the same container that is not below the page.',
    retryable: false,
  },
  op_id_reused: {
    status: 409,
    when: 'a work or page write whose op_id a different gesture (another kind, item, project, page or container) used first',
    detail: 'That op_id was used by another write.',
    hint: 'A retry repeats the same change with the same op_id; a new change needs a new op_id (a UUID).',
    retryable: false,
  },
  no_project: {
    status: 404,
    when: '`/work/files` of an unknown project',
    detail: 'No such project.',
    hint: 'List projects with `GET /work/projects`.',
    retryable: false,
  },
  member_live: {
    status: 409,
    when: 'fleet removal of a node holding a live lease, or of a broker peer reported online, without `?force=true`; work-log retention eviction of a node that is live and current',
    detail: 'The member is still live: it holds a lease, or the broker reports it online.',
    hint: 'Stop the node (or server) and wait until `GET /fleet` (or `/fleet/broker`) no longer shows it live, or repeat with `?force=true` if it is gone for good.',
    retryable: true,
  },
  position_trimmed: {
    status: 409,
    when: 'readmission of a work-log retention holder whose acknowledged position the log no longer holds (trimmed, or an earlier generation)',
    detail: "The holder's acknowledged position is no longer in the work log.",
    hint: 'Rebuild the node (`svc projections rebuild work`, then let it acknowledge) or acknowledge a current position for the holder, then readmit it.',
    retryable: false,
  },
  maintenance_open: {
    status: 409,
    when: 'a work-log maintenance window, a reanchor or a trim while a maintenance window is open',
    detail: 'A work-log maintenance window is open.',
    hint: 'Read `GET /work/retention/maintenance`; abandon the window first if it should not go on.',
    retryable: false,
  },
  no_maintenance_window: {
    status: 409,
    when: 'abandoning or excluding from a work-log maintenance window while none is open',
    detail: 'No work-log maintenance window is open.',
    hint: 'Read `GET /work/retention/maintenance`: the last window may have closed already.',
    retryable: false,
  },
  nothing_to_trim: {
    status: 409,
    when: "`POST /work/retention/trim` when no record may go: no admitted holder, the floor at or below the first record kept, a capacity the log is within, or the first record's task events and wakes not delivered yet by the `work_effects` consumer",
    detail: 'No record of the work log may be removed now.',
    hint: "Read `GET /work/retention` (`floor`, `held_by`, `over_capacity`) and the detail: a holder that lags holds the log back until it catches up or is evicted, the effects consumer until the record's effects are delivered.",
    retryable: false,
  },
  work_unavailable: {
    status: 503,
    when: 'any `/work*` route on a node whose work log was trimmed and which could read no snapshot reaching its first record',
    detail: 'This node cannot serve the work tracker: its state would lack what the trim removed.',
    hint: 'Ask another node; make a snapshot readable (`svc_work_snapshots`) and rebuild (`svc projections rebuild work`) or restart the node (ops/work-tracker.md "Retention").',
    retryable: true,
  },
  content_unavailable: {
    status: 503,
    when: 'file listed but content unreadable; a listed configuration revision whose document the stream cannot return now',
    detail: 'The file is listed but its content cannot be read now.',
    hint: 'Retry later; if it persists, check the file store of the node that wrote it.',
    retryable: true,
  },
} as const satisfies Record<string, ErrorEntry>;
