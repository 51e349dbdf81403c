/** The operator docs the doc tests read: the README, ARCHITECTURE.md and every page under ops/. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../harness/child.js';

export const operatorDocs = (): string[] => [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'ops'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `ops/${f}`),
];
