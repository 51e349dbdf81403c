/** The company document (Tier B): schema, validation, identities, secret leaves, editor schema. */
export { AGENT_NAMESPACE, agentId, NAMESPACE_DNS, NAMESPACE_URL, uuidv5 } from './agent-id.js';
export { Company } from './company.schema.js';
export { CodehostBAccessLevels } from './integrations.schema.js';
export { VendorIds } from './vendor-ids.js';
export { LlmProvider, McpServer } from './providers.schema.js';
export { Seat } from './seat.schema.js';
export { derivedOf, type DerivedSeat, type DerivedUnit } from './derived.js';
export { companyJsonSchema } from './json-schema.js';
export { knownKeysAt } from './known-keys.js';
export { unresolvedReferences, unschedulableReferences } from './unresolved.js';
export { pathOf, type Segment } from './problems.js';
export { emptyHost } from './fields.js';
export { isSecretPath, namesSecret } from './secret-paths.js';
export {
  DefaultTransportEvents,
  HttpSchemes,
  OutboundTransport,
  outboundTransports,
  PagerEventsUrl,
  SmsApiUrl,
  SmtpSchemes,
  usableUrl,
} from './transports.js';
export { validateCompany, ValidationMode } from './validate.js';
export { nestingProblem } from './nesting.js';
export type { CompanyValidation } from './validate.js';
export { parseCompanyJson, repeatedKeyProblem } from './json-parse.js';
export { MAX_YAML_ALIASES, parseCompanyYaml } from './yaml-parse.js';
export { walkCompany } from './walk.js';
export { keepStoredHandles } from './keep-handles.js';
export { TURN_ROUND_DEFAULTS } from './settings.schema.js';
export {
  EMBEDDINGS_MAX_WIDTH,
  EMBEDDINGS_MIN_SIMILARITY,
  readEmbeddings,
  type EmbeddingsSettings,
} from './embeddings.js';
