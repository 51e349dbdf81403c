/** Subjects and keys of the configuration subsystem (spec "Bus topics"); its command is in `Commands.config`. */
import { Subjects } from '../../bus/index.js';

export const configSubjects = {
  revisionStored: Subjects.configRevisionStored,
  revisionActivated: Subjects.configRevisionActivated,
  revisionApplied: Subjects.configRevisionApplied,
} as const;

/** Key of the fleet-wide active pointer in the coordination bucket. */
export const activePointerKey = 'config.active';
