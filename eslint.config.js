// Lint: type-checked rules plus the import zones of DESIGN.md ("who may import what").
import tseslint from 'typescript-eslint';

const folders = ['schema', 'bus', 'actors', 'projections', 'http', 'scripts'];
// DESIGN.md: folder -> project folders it may import.
const allowed = {
  schema: [],
  bus: ['schema'],
  actors: ['schema', 'bus'],
  projections: ['schema', 'bus'],
  http: ['schema', 'bus', 'projections'],
  scripts: ['schema', 'bus', 'actors', 'projections', 'http'],
};
// Forbidden project folders per folder, as one import pattern each.
const zone = (target) => {
  const banned = folders.filter((f) => f !== target && !allowed[target].includes(f));
  return banned.length === 0
    ? []
    : [
        {
          regex: `^(\\.\\./)+(${banned.join('|')})/`,
          message: `DESIGN.md: ${target}/ may import only ${allowed[target].join(', ') || 'no other folder'}.`,
        },
      ];
};
// Each folder's public surface is its index.ts: no deep imports across folders.
const deepImport = {
  regex: `^(\\.\\./)+(${folders.join('|')})/(?!index\\.js$).+`,
  message: 'Import another folder through its index.ts only.',
};
// Benchmarks import their baselines (a bare uWebSockets.js hello, raw JetStream) directly: no barrel ships them.
const benchDeepImport = {
  regex: `^(\\.\\./)+(?!(bus|http)/bench/)(${folders.join('|')})/(?!index\\.js$).+`,
  message: deepImport.message,
};
const nats = { group: ['@nats-io/*', 'nats'], message: 'Only bus/ imports NATS (DESIGN.md).' };
const uws = {
  group: ['@trufflesuite/uws-js-unofficial', 'uWebSockets.js'],
  message: 'Only http/ imports uWebSockets.js.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tap/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...folders.map((f) => ({
    files: [`${f}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [...zone(f), deepImport, ...(f === 'bus' ? [] : [nats]), ...(f === 'http' ? [] : [uws])],
        },
      ],
    },
  })),
  {
    files: ['scripts/bench/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...zone('scripts'), benchDeepImport, nats, uws] }],
    },
  },
  {
    // A machine imports only schema and xstate: effects belong to its host.
    files: ['actors/*/*.machine.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!xstate$|(\\.\\./)+schema/index\\.js$|\\./).*',
              message: 'A machine imports only schema and xstate.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      // tap collects t.test() promises itself; async callbacks without await are its idiom.
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
);
