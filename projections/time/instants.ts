/**
 * The read models' instants (spec projection rule 3). One parser serves the events log and the read models; it
 * lives in schema. `compareInstants` here orders raw stamps (schema's `compareStamps`), not parsed instants.
 */
export {
  canonicalInstant,
  compareInstantMs,
  compareStamps as compareInstants,
  instantMs,
  isNotOlder,
} from '../../schema/index.js';
