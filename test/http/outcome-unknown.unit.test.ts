// The outcome_unknown hint fits the write it answers (http/outcome-unknown.ts).
import t from 'tap';
import { outcomeUnknownHint } from '../../http/outcome-unknown.js';
import { errorUse } from '../../schema/index.js';

t.test('a work write’s outcome_unknown hint names the item and op_id, never a revision', async (t) => {
  for (const path of ['/work', '/work/ENG-1/comments', '/work/ENG-1/move', '/work/files/ENG/a.md']) {
    const hint = outcomeUnknownHint(path) ?? '';
    t.notMatch(hint, /revision|If-Match/i, path);
    t.match(hint, /op_id is applied once/, path);
  }
  t.match(outcomeUnknownHint('/work/ENG-1/comments'), /GET \/work\/\{id\}/);
  t.match(outcomeUnknownHint('/work/files/ENG/a.md'), /GET \/work\/files\//);
});

t.test('config and setup writes keep the revision hint; other writes get the catalogue’s', async (t) => {
  for (const path of ['/config', '/config/mcp-servers/docs', '/setup/inputs'])
    t.match(outcomeUnknownHint(path), /GET \/config\/revisions\/\{revision_id\}/, path);
  t.equal(outcomeUnknownHint('/workers'), undefined, 'a prefix matches whole segments only');
  t.equal(outcomeUnknownHint('/backup'), undefined);
  t.notMatch(errorUse('outcome_unknown').hint, /revision/i, 'the catalogue’s hint fits any write');
});
