/**
 * Runs the revision actors of this node: replays SVC_CONFIG into the revision table at start, then
 * follows its tail, so every revision's lifecycle (stored → active → superseded, and each node's apply)
 * is rebuilt from the stream after a restart and is the same on every node.
 */
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus, type StoredMessage, type Subscription } from '../../bus/index.js';
import { revisionHeadHeader } from '../../schema/index.js';
import {
  emptyRevisionTable,
  foldRevisionFact,
  peerApplied,
  revisionStatus,
  type RevisionFact,
  type RevisionStatus,
  type RevisionTable,
} from './revisions.js';

export interface Revisions {
  status(revisionId: string): RevisionStatus | null;
  /** Every revision in the order first seen (stream order of its records). */
  statuses(): RevisionStatus[];
  /** A node other than `nodeId` applied the revision that won `epoch` (posture lag reads it). */
  peerApplied(epoch: number, nodeId: string): boolean;
  stop(): Promise<void>;
}

export interface RevisionsOptions {
  readonly bus: Bus;
  readonly logger: Logger;
  /**
   * A stored record's metadata: only its `revision_id` is read. The wiring passes a reader that skips
   * the document unparsed; the default parses the record whole.
   */
  readonly storedHead?: (data: Uint8Array) => unknown;
}

const decoder = new TextDecoder();
const jsonText = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
};
const json = (data: Uint8Array): unknown => jsonText(decoder.decode(data));

/** Stored records read per window at start: documents are large, so a few at a time. */
const storedWindow = 64;

export async function startRevisions(opts: RevisionsOptions): Promise<Revisions> {
  const { bus } = opts;
  const table: RevisionTable = emptyRevisionTable();
  const storedHead = opts.storedHead ?? json;
  const factOf = (message: StoredMessage): RevisionFact | null => {
    if (message.subject === Subjects.configRevisionStored) {
      // The metadata header when the record carries one (its document then need not be read at all).
      const head = message.headers[revisionHeadHeader];
      return { kind: 'stored', record: head !== undefined ? jsonText(head) : storedHead(message.data) };
    }
    if (message.subject === Subjects.configRevisionActivated)
      return { kind: 'activated', pointer: json(message.data) };
    if (message.subject === Subjects.configRevisionApplied)
      return { kind: 'applied', announcement: json(message.data) };
    return null;
  };
  const fold = (message: StoredMessage): void => {
    const fact = factOf(message);
    if (fact) foldRevisionFact(table, fact);
  };

  // 1. replay: each subject in its own order (the fold does not depend on how subjects interleave)
  const info = await bus.streamInfo(Streams.Config);
  for (let from = Math.max(1, info.firstSeq); from <= info.lastSeq; from += storedWindow) {
    const toSeq = Math.min(info.lastSeq, from + storedWindow - 1);
    for await (const m of bus.replay(Streams.Config, {
      subject: Subjects.configRevisionStored,
      fromSeq: from,
      toSeq,
      skipBodies: { subject: Subjects.configRevisionStored, header: revisionHeadHeader },
    }))
      fold(m);
  }
  for (const subject of [Subjects.configRevisionActivated, Subjects.configRevisionApplied]) {
    for await (const m of bus.replay(Streams.Config, { subject, toSeq: info.lastSeq })) fold(m);
  }
  // 2. the tail
  const tail: Subscription = await bus.follow(Streams.Config, { fromSeq: info.lastSeq + 1 }, fold);
  const active = table.active ? revisionStatus(table.revisions.get(table.active.revision_id)!) : null;
  opts.logger.info(
    {
      revisions: table.revisions.size,
      active_revision_id: active?.revision_id ?? null,
      applied_on: active
        ? Object.fromEntries(Object.entries(active.nodes).map(([n, a]) => [n, a.status]))
        : {},
    },
    'revisions replayed',
  );

  return {
    status: (id) => {
      const snapshot = table.revisions.get(id);
      return snapshot ? revisionStatus(snapshot) : null;
    },
    statuses: () => [...table.revisions.values()].map(revisionStatus),
    peerApplied: (epoch, nodeId) => peerApplied(table, epoch, nodeId),
    stop: () => tail.stop(),
  };
}
