/** What the `/work` routes are given: the folded state, the document's projects and people, the writer. */
import type {
  Person,
  RetentionCommand,
  RetentionReply,
  WorkProject,
  WorkState,
  WorkWrite,
  WorkWriteReply,
} from '../../../schema/index.js';

export interface WorkRouteDeps {
  /** The work projection's current state. */
  state(): WorkState;
  /** Why this node cannot serve the tracker (a trimmed log, no snapshot), or null; absent: always null. */
  readonly unavailable?: () => string | null;
  /** Resolves once this node's projection reflects `seq` (read-your-writes after a change). */
  until(seq: number, timeoutMs: number): Promise<boolean>;
  /** Projects of the active document. */
  projects(): readonly WorkProject[];
  /** Human seats with their bindings (who a token acts as). */
  people(): readonly Person[];
  /** Every seat of the active document by handle (the activity `actor` filter names one in any case). */
  seats(): ReadonlyMap<string, 'agent' | 'human'>;
  /** Sends one change to the work writer (`svc.cmd.work.write`). */
  write(write: WorkWrite): Promise<WorkWriteReply>;
  /** Sends one retention gesture to the work host (`svc.cmd.work.retention`). */
  retention(cmd: RetentionCommand): Promise<RetentionReply>;
  /** Live node ids of the fleet (null while not readable): the retention status marks holders live. */
  roster(): Promise<readonly string[] | null>;
  /**
   * The stream sequence through which the effects consumer (`work_effects`) has acknowledged every record it
   * delivers (its ack floor), null when it does not exist; absent: not shown. A trim stays below the first
   * project record past it.
   */
  readonly effectsAcknowledged?: () => Promise<number | null>;
  readonly now?: () => Date;
}
