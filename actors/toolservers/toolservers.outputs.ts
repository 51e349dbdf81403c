/**
 * Tool output schemas, compiled when a tool is first called. The SDK's client compiles every listed tool's
 * `outputSchema` at each listing by default: about 0.4 ms a tool (4 s for 10,000) before the server counts
 * as started, again at every list change, for tools that may never be called — and one schema Ajv cannot
 * compile (a `$ref` to nothing) failed the whole listing, so the server never started.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

export class LazyOutputSchemas implements jsonSchemaValidator {
  /** One Ajv per client (its cache goes with the client), itself made at the first call that needs it. */
  private ajv: AjvJsonSchemaValidator | null = null;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let compiled: JsonSchemaValidator<T> | null = null;
    // A schema that does not compile throws here, at the call: the SDK answers that call with the reason.
    return (input) => {
      compiled ??= (this.ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
      return compiled(input);
    };
  }
}
