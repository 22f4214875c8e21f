/*
 * Import rules, checked by `npm run lint` (depcruise src cli mcp ui agent bench): no module
 * imports itself through others, and the library never imports its adapters or the tests.
 * Type-only imports count: a cycle of types still ties the modules together.
 */

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle: move what both modules need down into a module both can import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'library-not-to-adapters',
      severity: 'error',
      comment:
        'src/ is the library under cli/, mcp/, agent/, ui/ and bench/: it imports none of them, nor the tests.',
      from: { path: '^src/' },
      to: { path: '^(cli|mcp|agent|ui|bench|test)/' },
    },
    {
      name: 'library-through-its-door',
      severity: 'error',
      comment:
        'Every adapter (the command line, the MCP server, brain ui, the assistant) reaches the library through src/index.ts only; one-shot commands stay light because openBrain loads only the sections they ask for.',
      from: { path: '^(cli|mcp|ui|agent)/' },
      to: { path: '^src/', pathNot: '^src/index[.]ts$' },
    },
    {
      name: 'assistant-through-its-door',
      severity: 'error',
      comment:
        'The command line and the other adapters reach the assistant through agent/index.ts only (benchmarks measure its parts and may reach in).',
      from: { path: '^(cli|mcp|ui)/' },
      to: { path: '^agent/', pathNot: '^agent/index[.]ts$' },
    },
    {
      name: 'ranking-through-its-face',
      severity: 'error',
      comment:
        'The library ranks by words through src/search/rank.ts; the compiled top k, the pruning, the score classes and the BM25 term are its internals (warm.ts prepares them; benchmarks measure them).',
      from: {
        path: '^src/',
        pathNot: '^src/search/(rank|warm|bm25-top-k|impacts|postings|word-counts)[.]ts$',
      },
      to: { path: '^src/search/(bm25|bm25-top-k|impacts|postings)[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|build|node_modules|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
