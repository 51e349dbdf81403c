export { carryUnknownKeys } from './carry.js';
export { listIdentity, pairItems, type Identity } from './collections.js';
export { diffDocuments, type Change } from './diff.js';
export {
  entityIdentityMatches,
  findEntity,
  listEntities,
  spliceEntity,
  type EntityKind,
} from './entities.js';
export { deriveHandle, handlePattern, nameIdentity, seatIdentity } from './identity.js';
export { depthBeyond, jsonTextDepthBeyond, MAX_DOCUMENT_DEPTH, MAX_RENDER_DEPTH } from './depth.js';
export { clone, isRecord, jsonEqual, type JsonObject } from './json.js';
export { mergePatch, patchUnknownKeys, type KnownKeysAt } from './merge-patch.js';
export { formatPath, parsePath } from './paths.js';
export { listReferences } from './references.js';
export {
  isMarker,
  isSealedDocument,
  marker,
  opaqueMarker,
  redact,
  restoreMasks,
  type IsSecret,
  type Marker,
  type RestoreProblem,
} from './redact.js';
