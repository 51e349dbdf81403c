// Reads TAP 14 from stdin and prints "tests: N passed, M failed[, K skipped]".
// A test is a top-level t.test() in a file; a file that fails outside its tests counts as one failure.
// Only a passing `# SKIP` counts as skipped. A `not ok` is a failure whatever directive it carries: TAP's
// expected-failure directive would otherwise hide one, and this suite has no expected failures.
import { createInterface } from 'node:readline';

let passed = 0,
  failed = 0,
  skipped = 0;
let fileFailures = 0;
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const sub = /^ {4}(not )?ok \d+ - .*?(# SKIP\b.*)?$/i.exec(line);
  if (sub) {
    if (sub[1]) {
      failed++;
      fileFailures++;
    } else if (sub[2]) skipped++;
    else passed++;
    continue;
  }
  const top = /^(not )?ok \d+ - /.exec(line);
  if (top) {
    if (top[1] && fileFailures === 0) failed++;
    fileFailures = 0;
  }
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
