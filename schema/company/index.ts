/** The company document (Tier B): schema, validation, identities, secret leaves, editor schema. */
export { AGENT_NAMESPACE, agentId, NAMESPACE_DNS, NAMESPACE_URL, uuidv5 } from './agent-id.js';
export { Company } from './company.schema.js';
export { CodehostBAccessLevels, Integrations } from './integrations.schema.js';
export { LlmProvider, LlmType, McpServer } from './providers.schema.js';
export { ContactField, Schedule, ScheduleTarget, Seat, SeatKind } from './seat.schema.js';
export { Unit, UnitType } from './unit.schema.js';
export type { Derived, DerivedSeat, DerivedUnit } from './derived.js';
export { companyJsonSchema } from './json-schema.js';
export { knownKeysAt } from './known-keys.js';
export { ProblemKind, ReferenceKind, WarningKind, pathOf } from './problems.js';
export type { CompanyProblem, CompanyWarning, Segment } from './problems.js';
export { isSecretPath, namesSecret } from './secret-paths.js';
export { validateCompany, ValidationMode } from './validate.js';
export { nestingProblem } from './nesting.js';
export type { CompanyValidation, ValidateOptions } from './validate.js';
export { parseCompanyJson, type DocumentParse } from './json-parse.js';
export { MAX_YAML_ALIASES, parseCompanyYaml, type YamlParse } from './yaml-parse.js';
export { yamlLines } from './yaml-lines.js';
