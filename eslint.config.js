import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Plain Node scripts npm runs before anything is built.
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // CommonJS config files for tools that load them with require (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable' },
    },
  },
  {
    // The browser script of `brain ui`: plain JavaScript run by the page, not by Node.
    files: ['ui/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        EventSource: 'readonly',
      },
    },
  },
  {
    // Tests poke at parsed JSON documents; typing every shape there buys nothing.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/cli/**', '**/mcp/**', '**/agent/**'],
              message: 'src/ must not import adapters',
            },
            {
              group: [
                'commander',
                'grammy',
                'discord.js',
                '@anthropic-ai/sdk',
                '@modelcontextprotocol/*',
                'croner',
              ],
              message: 'src/ must not import adapter libraries',
            },
          ],
        },
      ],
    },
  },
);
