// Reads TAP 14 from stdin and prints "tests: N passed, M failed[, K skipped]".
// A test is a top-level t.test() in a file; a file that fails outside its tests counts as one failure.
// Only a passing `# SKIP` counts as skipped. A `not ok` is a failure whatever directive it carries: TAP's
// expected-failure directive would otherwise hide one, and this suite has no expected failures.
// Each failure is named ("failed: file > test") just above the count: a CI log is often read from its tail.
// Above the names, each failing file's failed assertions with their diagnostics (capped), so that tail also
// says why.
import { createInterface } from 'node:readline';

let passed = 0,
  skipped = 0;
const failures = [];
const reasons = [];
let fileFailures = [];
let fileLines = [];
const REASON_LINES = 60;
const REASON_WIDTH = 300;

/** The `not ok` lines of a file's TAP, each with the YAML block under it. */
function why(lines) {
  const kept = [];
  for (let i = 0; i < lines.length && kept.length < REASON_LINES; i++) {
    const failed = /^( *)not ok /.exec(lines[i]);
    if (!failed) continue;
    kept.push(lines[i]);
    const yaml = /^( *)---$/.exec(lines[i + 1] ?? '');
    if (!yaml || yaml[1].length <= failed[1].length) continue;
    for (i++; i < lines.length && kept.length < REASON_LINES; i++) {
      kept.push(lines[i]);
      if (lines[i] === `${yaml[1]}...`) break;
    }
  }
  return kept.map((line) => (line.length > REASON_WIDTH ? `${line.slice(0, REASON_WIDTH)}…` : line));
}
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.startsWith('    ')) fileLines.push(line);
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
    if (top[1] || fileFailures.length > 0) reasons.push(`why: ${file}`, ...why(fileLines));
    fileFailures = [];
    fileLines = [];
  }
}
for (const reason of reasons) console.log(reason);
for (const failure of failures) console.log(`failed: ${failure}`);
console.log(`tests: ${passed} passed, ${failures.length} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failures.length > 0 ? 1 : 0);
