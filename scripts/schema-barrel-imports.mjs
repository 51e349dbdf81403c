// An esbuild plugin for scripts/build-server.mjs: each `import { a, b } from '../schema/index.js'` is bundled
// as imports of the files that declare a and b. esbuild splits chunks by which entry points reach a file, and
// every file a barrel re-exports is reached through it: a client command (`svc config get`) that takes one
// string helper from schema/ would load every zod schema and the packages behind them (a third of a second
// at each start). The source keeps DESIGN.md's one surface per folder; only the bundle's graph is narrowed.
// schema/ alone is flattened: its files only declare (the architecture tests keep it free of I/O, and the
// import graph free of cycles), so importing one of them without its barrel evaluates nothing else.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// `export { a, type B, c as d } from './x.js';` in a barrel; type-only statements declare no value.
const reExport = /export\s*(type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']+)';/g;
// A value import of the schema barrel; `import type`, namespace and default imports are left as written.
const barrelImport = /import\s*\{([^}]*)\}\s*from\s*'((?:\.\.\/)+schema\/index\.js)';/g;
const specifier = /^(type\s+)?([\w$]+)(?:\s+as\s+([\w$]+))?$/;

const sourceOf = (from, relativeJs) => resolve(dirname(from), relativeJs.replace(/\.js$/, '.ts'));

/** Each value name `barrel` exports -> the file that declares it and its name there. */
function declaredIn(barrel) {
  const names = new Map();
  for (const [, typeOnly, list, from] of readFileSync(barrel, 'utf8').matchAll(reExport)) {
    if (typeOnly) continue;
    const file = sourceOf(barrel, from);
    const inner = file.endsWith(`${sep}index.ts`) ? declaredIn(file) : null;
    for (const part of list.split(',')) {
      const match = specifier.exec(part.trim());
      if (!match || match[1]) continue;
      const [, , name, exported = name] = match;
      const declared = inner ? inner.get(name) : { file, name };
      if (declared) names.set(exported, declared);
    }
  }
  return names;
}

/** `text` (of `importer`) with its schema barrel imports split per declaring file, on as many lines as before. */
function flatten(text, importer, schemaIndex, declared) {
  return text.replace(barrelImport, (statement, list, from) => {
    if (sourceOf(importer, from) !== schemaIndex) return statement;
    const perFile = new Map();
    const types = [];
    const unknown = [];
    for (const part of list.split(',').map((p) => p.trim())) {
      if (part === '') continue;
      const match = specifier.exec(part);
      // A shape not understood (a comment in the braces) keeps the statement as written: slower, never wrong.
      if (!match) return statement;
      const [, typeOnly, name, local = name] = match;
      if (typeOnly) {
        types.push(part.replace(/^type\s+/, ''));
        continue;
      }
      const at = declared.get(name);
      if (!at) {
        unknown.push(part);
        continue;
      }
      perFile.set(at.file, [
        ...(perFile.get(at.file) ?? []),
        at.name === local ? local : `${at.name} as ${local}`,
      ]);
    }
    const imports = [...perFile].map(([file, names]) => {
      const path = relative(dirname(importer), file).split(sep).join('/').replace(/\.ts$/, '.js');
      return `import { ${names.join(', ')} } from '${path.startsWith('.') ? path : `./${path}`}';`;
    });
    // Type names go in an `import type`: with verbatimModuleSyntax an inline `type` keeps the barrel loaded.
    if (types.length > 0) imports.push(`import type { ${types.join(', ')} } from '${from}';`);
    if (unknown.length > 0) imports.push(`import { ${unknown.join(', ')} } from '${from}';`);
    return imports.join(' ') + '\n'.repeat(statement.split('\n').length - 1);
  });
}

/** The plugin, for the project at `root`. */
export function schemaBarrelImports(root) {
  const schemaDir = join(root, 'schema') + sep;
  const schemaIndex = join(schemaDir, 'index.ts');
  return {
    name: 'schema-barrel-imports',
    setup(build) {
      let declared = null;
      build.onStart(() => {
        declared = declaredIn(schemaIndex);
      });
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.startsWith(schemaDir) || args.path.includes(`${sep}node_modules${sep}`))
          return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('schema/index.js')) return undefined;
        return { contents: flatten(text, args.path, schemaIndex, declared), loader: 'ts' };
      });
    },
  };
}
