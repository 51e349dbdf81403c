/**
 * DESIGN.md "Commands have one catalogue": no source file outside schema/commands/ spells a command
 * subject, and only the bus's own helpers (and the read scatter, a query rather than a command) call
 * `request` / `reply` on the bus directly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');
const sourceFolders = ['actors', 'bus', 'http', 'projections', 'schema', 'scripts'];
/** Where a command subject may be spelled. */
const catalogue = 'schema/commands/';
/** Who may call `request` / `reply` on the bus: the engines and the helpers, and the scatter of reads. */
const rawRequestAllowed = (file: string): boolean => file.startsWith('bus/') || file === 'http/scatter.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What in one file breaks the rule; comments are not code, so they may name a subject. */
function violations(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    if (!file.startsWith(catalogue)) {
      const literal =
        ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node);
      if (literal && /svc\.cmd\b/.test(node.text)) at(node, `spells a command subject: ${node.text}`);
      if (
        ts.isPropertyAccessExpression(node) &&
        node.getText(source).replace(/\s/g, '') === 'Subjects.command'
      )
        at(node, 'builds a command subject with Subjects.command');
    }
    if (
      !rawRequestAllowed(file) &&
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['request', 'reply'].includes(node.expression.name.text)
    )
      at(node, `calls ${node.expression.name.text}() on the bus: use sendCommand / serveCommand`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

t.test('the guard finds each kind of violation', async (t) => {
  const sample = [
    "const a = 'svc.cmd.config.write';",
    'const b = `svc.cmd.${area}.${verb}`;',
    "const c = Subjects.command('seats', 'pause');",
    'await bus.request(subject, data, { timeoutMs: 1 });',
    'bus.reply(subject, handler);',
    '// svc.cmd.config.write in a comment is fine',
  ].join('\n');
  t.equal(violations('actors/x.ts', sample).length, 5);
  t.equal(violations('bus/x.ts', sample).length, 3, 'the bus may call request and reply');
  t.equal(violations('schema/commands/x.ts', sample).length, 2, 'the catalogue may spell subjects');
});

t.test('no command subject or raw command round trip outside the catalogue and the helpers', async (t) => {
  const files = sourceFolders.flatMap((folder) => sourceFiles(join(root, folder)));
  t.ok(files.length > 100, 'the source folders were read');
  const found = files.flatMap((path) => {
    const file = relative(root, path).split('\\').join('/');
    return violations(file, readFileSync(path, 'utf8'));
  });
  t.same(found, []);
});
