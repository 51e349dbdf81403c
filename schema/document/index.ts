export { carryUnknownKeys, unknownKeyPaths, withoutUnknownKeys } from './carry.js';
export { diffDocuments } from './diff.js';
export {
  entityIdentityMatches,
  findEntity,
  listEntities,
  spliceEntity,
  type EntityKind,
} from './entities.js';
export { deriveHandle, handlePattern, seatIdentity } from './identity.js';
export { depthBeyond, jsonTextDepthBeyond, MAX_DOCUMENT_DEPTH, MAX_RENDER_DEPTH } from './depth.js';
export { clone, isRecord, type JsonObject } from './json.js';
export { mergePatch, patchUnknownKeys, type KnownKeysAt } from './merge-patch.js';
export { formatPath, parsePath } from './paths.js';
export { listReferences } from './references.js';
export { isSealedDocument, opaqueMarker, redact, restoreMasks } from './redact.js';
export { maskQueryCredentials } from './url-query-credential.js';
