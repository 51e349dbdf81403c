/** What the `/work` routes are given: the folded state, the document's projects and people, the writer. */
import type { Person, WorkProject, WorkState, WorkWrite, WorkWriteReply } from '../../../schema/index.js';

export interface WorkRouteDeps {
  /** The work projection's current state. */
  state(): WorkState;
  /** Resolves once this node's projection reflects `seq` (read-your-writes after a change). */
  until(seq: number, timeoutMs: number): Promise<boolean>;
  /** Projects of the active document. */
  projects(): readonly WorkProject[];
  /** Human seats with their bindings (who a token acts as). */
  people(): readonly Person[];
  /** Sends one change to the work writer (`svc.cmd.work.write`). */
  write(write: WorkWrite): Promise<WorkWriteReply>;
  readonly now?: () => Date;
}
