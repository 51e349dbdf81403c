/**
 * Sends one `Commands.config.write` (config routes and setup routes alike). A write the writer failed
 * mid-way or did not answer may or may not be stored: it is answered 503 `outcome_unknown` naming the
 * revision it tried (the command's `revision_id`), never a generic failure.
 */
import { BusError, sendCommand, type Bus } from '../../bus/index.js';
import { Commands, type ConfigWrite, type ConfigWriteReply } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import { configOutcomeHint } from '../outcome-unknown.js';

export async function sendConfigWrite(
  deps: { readonly bus: Bus; readonly writeTimeoutMs?: number | undefined },
  command: ConfigWrite,
): Promise<ConfigWriteReply> {
  try {
    return await sendCommand(deps.bus, Commands.config.write, command, { timeoutMs: deps.writeTimeoutMs });
  } catch (error) {
    if (!(error instanceof BusError)) throw error;
    const tried =
      command.dry_run || command.revision_id === undefined ? {} : { revision_id: command.revision_id };
    throw new ApiError('outcome_unknown', { extra: tried, hint: configOutcomeHint, cause: error });
  }
}
