/** The company document's JSON Schema for editors, generated from the zod schema (never written twice). */
import { z } from 'zod';
import { Company } from './company.schema.js';

let cached: Record<string, unknown> | null = null;

/**
 * JSON Schema (draft 2020-12) of the document as an operator writes it. Shapes, enums, patterns and
 * bounds carry over; rules between fields (rules-*.ts) do not, so `svc config validate` stays the
 * authority.
 */
export function companyJsonSchema(): Record<string, unknown> {
  cached ??= z.toJSONSchema(Company, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return structuredClone(cached);
}
