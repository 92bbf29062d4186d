import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Layers point down (docs/design.md §6): a folder may not import the layers above it. */
/** What src/files sits under. */
const FILES_BELOW = ['**/client/**', '**/service/**', '**/store/**', '**/api/**', '**/cli/**', '**/mcp/**', '**/dashboard/**', '**/processes/**', '**/config.js'];
const noImportOf = (groups, message) => ({ 'no-restricted-imports': ['error', { patterns: groups.map((group) => ({ group, message })) }] });

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The dashboard's one browser script (plain JavaScript, no build step).
    files: ['src/dashboard/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', fetch: 'readonly', XMLHttpRequest: 'readonly', FormData: 'readonly', DOMParser: 'readonly', EventSource: 'readonly' },
    },
  },
  {
    // Haraka plugins of the real-MTA test bed: CommonJS, run by Haraka with its return codes as globals.
    files: ['test/realmta/haraka/plugins/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { exports: 'writable', require: 'readonly', OK: 'readonly', DENY: 'readonly', CONT: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The engine knows nothing of HTTP, storage, queues or the layers built on it.
    files: ['src/core/**/*.ts'],
    rules: noImportOf(
      [
        [
          '**/config.js',
          '**/logger.js',
          '**/api/**',
          '**/service/**',
          '**/store/**',
          '**/queue/**',
          '**/files/**',
          '**/feedback/**',
          '**/mailworld/**',
          '**/dashboard/**',
          '**/processes/**',
          '**/cli/**',
          '**/mcp/**',
          '**/client/**',
          'fastify',
          '@fastify/*',
          'pg',
          'pg-boss',
          'better-sqlite3',
        ],
      ],
      'src/core is the engine: no configuration, HTTP, storage, queue or upper layer; it declares its own settings (core/engine-config.ts) (docs/architecture.md).',
    ),
  },
  {
    // Every CSV line is written by src/files/table-writer.ts, which escapes formulas (formula-escape.ts).
    files: ['src/cli/**/*.ts', 'src/dashboard/**/*.ts', 'src/api/**/*.ts', 'src/mcp/**/*.ts'],
    rules: noImportOf([['csv-stringify', 'csv-stringify/*']], 'Write CSV through src/files (csvRecord, createCsvWriter): one writer path, which escapes formulas.'),
  },
  {
    // src/files reads and writes tables for the CLI, the dashboard and the service: below all of
    // them and below the SDK (it declares the result fields it reads); CSV only through table-writer.ts.
    files: ['src/files/**/*.ts'],
    ignores: ['src/files/table-writer.ts'],
    rules: noImportOf([[...FILES_BELOW, 'csv-stringify', 'csv-stringify/*']], 'src/files imports no upper layer (client, service, store, api, cli, mcp, dashboard, config) and writes CSV through table-writer.ts.'),
  },
  {
    files: ['src/files/table-writer.ts'],
    rules: noImportOf([FILES_BELOW], 'src/files imports no upper layer (client, service, store, api, cli, mcp, dashboard, config).'),
  },
  {
    // Error codes live in the service; their HTTP statuses only in src/api.
    files: ['src/service/**/*.ts', 'src/store/**/*.ts', 'src/queue/**/*.ts'],
    rules: noImportOf(
      [['**/api/**', '**/cli/**', '**/mcp/**', 'fastify', '@fastify/*', 'csv-stringify', 'csv-stringify/*']],
      'Layers point down: the service, store and queue never import src/api, src/cli or src/mcp (and write CSV through src/files).',
    ),
  },
  {
    // The SDK imports the wire schemas and nothing else of the server, so its bundle stays small.
    files: ['src/client/**/*.ts'],
    rules: noImportOf(
      [['**/api/*', '!**/api/schemas.js', '**/service/**', '**/store/**', '**/queue/**', '**/cli/**', '**/mcp/**', 'fastify', '@fastify/*', 'pg', 'pg-boss', 'better-sqlite3']],
      'The client SDK may import src/api/schemas.ts only, never the server.',
    ),
  },
  {
    files: ['src/api/schemas.ts'],
    rules: noImportOf(
      [['fastify', '@fastify/*', 'pg', 'pg-boss', 'better-sqlite3', '**/store/**', '**/queue/**', './*', '../service/*', '!../service/errors.js']],
      'src/api/schemas.ts is imported by the client SDK: TypeBox, the engine vocabularies and the error catalog only.',
    ),
  },
);
