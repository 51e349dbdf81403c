/**
 * A second process started with a running node's id (a copied Tier A file) is refused before it writes
 * anything (ops/fleet.md "A restarted node, a duplicate node id"). The live presence record of the id
 * names the process writing it; that process answers on its instance's holder subject while it runs.
 * No responder: a crashed process of this node (a restart), start. An answer: refuse, naming where it
 * runs. No answer in time (a paused process): start; should it resume, both see the duplicate and
 * withhold admission until one stops.
 */
import { probeOutcome, Subjects, type Bus, type Kv } from '../../bus/index.js';
import { NodePresence } from '../../schema/index.js';
import { presenceKeys } from './fleet.view.js';

const askTimeoutMs = 2_000;

/** Thrown by `refuseRunningDuplicate`: its message says which process already runs the id. */
class DuplicateNodeIdError extends Error {
  override name = 'DuplicateNodeIdError';
}

/** Where a presence record says its process runs: host, pid, API address, start. */
export function describeProcess(record: NodePresence): string {
  const parts = [
    record.pid === null ? null : `pid ${record.pid}`,
    record.host === null ? null : `on host ${record.host}`,
    record.api === null ? 'no API listener' : `API ${record.api.host}:${record.api.port}`,
    `started ${record.started_at}`,
  ];
  return parts.filter((part) => part !== null).join(', ');
}

/**
 * The live process running `nodeId`, from its presence record, when that process answers on its holder
 * subject; null when none does (never started, stopped, crashed, or paused past the ask).
 */
export async function runningProcess(opts: {
  readonly bus: Pick<Bus, 'request'>;
  readonly coord: Kv;
  readonly nodeId: string;
  readonly now?: () => Date;
}): Promise<NodePresence | null> {
  const entry = await opts.coord.get(presenceKeys.node(opts.nodeId));
  if (entry === null) return null;
  let record: NodePresence;
  try {
    record = NodePresence.parse(JSON.parse(new TextDecoder().decode(entry.value)));
  } catch {
    return null;
  }
  const nowMs = (opts.now ?? (() => new Date()))().getTime();
  if (new Date(record.expires_at).getTime() <= nowMs) return null;
  // No responder (a restart) or no answer in time (paused): not running, see above.
  if ((await probeOutcome(opts.bus, Subjects.leaseHolder(record.instance), askTimeoutMs)) !== 'answered')
    return null;
  return record;
}

/** Resolves when this process may write `nodeId`'s presence; rejects when a live process already does. */
export async function refuseRunningDuplicate(opts: {
  readonly bus: Pick<Bus, 'request'>;
  readonly coord: Kv;
  readonly nodeId: string;
  readonly now?: () => Date;
}): Promise<void> {
  const record = await runningProcess(opts);
  if (record === null) return;
  throw new DuplicateNodeIdError(
    `node id ${opts.nodeId} is already running (${describeProcess(record)}); ` +
      'stop that process or give this one its own node.id',
  );
}
