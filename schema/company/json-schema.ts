/** The company document's JSON Schema for editors, generated from the zod schema (never written twice). */
import { z } from 'zod';
import { Company } from './company.schema.js';

/** Stable name of the schema: a URN, since the schema is printed by `svc config schema`, not hosted. */
export const companySchemaId = 'urn:svc:company-document';

let cached: Record<string, unknown> | null = null;

/**
 * JSON Schema (draft 2020-12) of the document as an operator writes it. Shapes, enums, patterns,
 * bounds and every field's description carry over, with a cron `pattern` and the timezone names
 * (editor-hints.ts); rules between fields (rules-*.ts) do not, so `svc config validate` stays the
 * authority.
 */
export function companyJsonSchema(): Record<string, unknown> {
  if (cached === null) {
    const generated = z.toJSONSchema(Company, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    const { $schema, ...rest } = generated;
    cached = { $schema, $id: companySchemaId, ...rest };
  }
  return structuredClone(cached);
}
