import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

t.test('svc config prints the warnings of an accepted document on stderr, one line each', async (t) => {
  const node = await startNode(t);
  const file = join(node.dir, 'company.yaml');
  writeFileSync(
    file,
    [
      'name: Acme',
      'units:',
      '  - name: Platform',
      '    type: team',
      '    lead: Bo Agnet',
      '    roles:',
      '      - name: Bo Agent',
      'providers: {llm: {main: {type: openai, model: gpt-main}}}',
      '',
    ].join('\n'),
  );
  for (const args of [
    ['validate', file],
    ['put', file, '--summary', 'first'],
  ]) {
    const run = runSvc(['config', ...args, '--url', node.url], { SVC_TOKEN: TOKEN });
    t.equal(await run.exited, 0, `${args[0]!} is accepted`);
    t.match(
      JSON.parse(run.stdout()),
      { warnings: [{ path: 'units[0].lead' }] },
      'stdout stays the JSON answer',
    );
    t.match(run.stderr(), /^svc config: WARNING: 1 warning\(s\) in the accepted document:\n/);
    t.match(run.stderr(), /  ! units\[0\]\.lead \(line 5\): names no seat; did you mean `Bo Agent`\?\n/);
  }
  const clean = join(node.dir, 'clean.yaml');
  writeFileSync(
    clean,
    'name: Acme\nroles:\n  - name: Ada\nproviders: {llm: {main: {type: openai, model: m}}}\n',
  );
  const quiet = runSvc(['config', 'put', clean, '--summary', 'clean', '--url', node.url], {
    SVC_TOKEN: TOKEN,
  });
  t.equal(await quiet.exited, 0);
  t.equal(quiet.stderr(), '', 'no warnings, nothing on stderr');
});
