// Reads TAP 14 from stdin and prints "tests: N passed, M failed[, K skipped]".
// A test is a top-level t.test() in a file; a file that fails outside its tests counts as one failure.
// Only a passing `# SKIP` counts as skipped. A `not ok` is a failure whatever directive it carries: TAP's
// expected-failure directive would otherwise hide one, and this suite has no expected failures.
// Each failure is named ("failed: file > test") just above the count: a CI log is often read from its tail.
import { createInterface } from 'node:readline';

let passed = 0,
  skipped = 0;
const failures = [];
let fileFailures = [];
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const sub = /^ {4}(not )?ok \d+ - (.*?)(# SKIP\b.*)?$/i.exec(line);
  if (sub) {
    if (sub[1]) fileFailures.push(sub[2].replace(/ # time=\S+$/, '').trim());
    else if (sub[3]) skipped++;
    else passed++;
    continue;
  }
  const top = /^(not )?ok \d+ - (.*?)(?: # time=.*)?$/.exec(line);
  if (top) {
    const file = top[2].trim();
    if (fileFailures.length > 0) failures.push(...fileFailures.map((name) => `${file} > ${name}`));
    else if (top[1]) failures.push(`${file} (outside its tests)`);
    fileFailures = [];
  }
}
for (const failure of failures) console.log(`failed: ${failure}`);
console.log(`tests: ${passed} passed, ${failures.length} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failures.length > 0 ? 1 : 0);
