/**
 * Reads one revision's document back from SVC_CONFIG by the sequence its record was folded at: the
 * stream keeps every revision forever (DESIGN.md streams), so the read model need not.
 */
import type { Bus } from '../../bus/index.js';
import type { LoadPayload } from './config.payloads.js';
import { splitRecord } from './config.record.js';

export function streamPayloadLoader(bus: Bus, stream: string, storedSubject: string): LoadPayload {
  return async (seq, revisionId) => {
    const message = await bus.getMessage(stream, seq);
    // A record that is not the one folded at this sequence means the stream was replaced under the node.
    if (!message || message.subject !== storedSubject) {
      throw new Error(`${stream} holds no revision record at sequence ${seq} (revision ${revisionId})`);
    }
    const split = splitRecord(message.data);
    if (split?.head['revision_id'] !== revisionId) {
      throw new Error(`${stream} sequence ${seq} is not the record of revision ${revisionId}`);
    }
    return { raw: split.payload };
  };
}
