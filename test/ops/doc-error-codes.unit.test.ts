/**
 * A doc that says a route answers `503 \`overloaded\`` names a code the node can send: every status followed
 * by a code in README.md, ARCHITECTURE.md and ops/ is in the error catalogue, or is a `/ready` reason (the
 * one other place a refusal carries a code of ours).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ErrorCode } from '../../schema/errors.js';
import { ReadyReason } from '../../schema/health.js';
import { root } from '../harness/child.js';
import { operatorDocs } from './docs.js';

const docs = operatorDocs();

t.test('every status-and-code a doc names is a code the node sends', async (t) => {
  const known = new Set<string>([...ErrorCode.options, ...Object.values(ReadyReason)]);
  const unknown: string[] = [];
  let checked = 0;
  for (const doc of docs) {
    readFileSync(join(root, doc), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(/\b([45]\d\d)\s+`([a-z_]+)`/g)) {
          checked++;
          if (!known.has(m[2]!)) unknown.push(`${doc}:${i + 1} ${m[1]} ${m[2]}`);
        }
      });
  }
  t.ok(checked > 100, `${checked} codes checked`);
  t.same(unknown, [], 'no code the node never sends');
});
