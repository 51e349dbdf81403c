/** The running build's version (health `version`): package.json's, found above this file. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a build answers when it cannot find its package.json. */
export const UNKNOWN_VERSION = '0.0.0-unknown';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached) return cached;
  // Source runs from scripts/, the build from dist/scripts/: walk up to the project's package.json.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i += 1) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (parsed.name === 'svc' && typeof parsed.version === 'string') return (cached = parsed.version);
    }
    dir = dirname(dir);
  }
  return (cached = UNKNOWN_VERSION);
}
