/**
 * Admission rule A17 (admission.ts): a redaction marker (`{encrypted: true, key_id}`, what a read shows in
 * place of a secret) where no read masks one. Write rule 7 swaps markers back only at secret leaves
 * (redact.ts restoreMasks); a typed field refuses the object as its shape, but a free settings map (an
 * extension's settings, a transport of a type this build does not send, a seat's sandbox beyond its typed
 * keys) took it as JSON, stored it literally, and read it back looking like a secret nobody had set. An
 * admission rule, so a revision an earlier release stored with one still boots, applies and reloads.
 */
import { isMarker } from '../document/redact.js';
import { ProblemKind, type Segment } from './problems.js';
import type { RuleContext } from './rule-context.js';
import { isSecretPath } from './secret-paths.js';

const MESSAGE =
  'a redaction marker ({encrypted: true, key_id}) stands only for a value a read masked, and none is masked here; write the value itself';

export function markerRules(ctx: RuleContext): void {
  const walk = (value: unknown, segments: Segment[]): void => {
    if (isMarker(value)) {
      // At a secret leaf a marker with nothing stored is the write's `missing` problem, not this one.
      if (!isSecretPath(segments)) ctx.admission(segments, ProblemKind.Shape, MESSAGE);
      return;
    }
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, i]));
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, [...segments, key]);
    }
  };
  walk(ctx.doc, []);
}
