/*
 * Import rules, checked by `npm run lint` (depcruise src cli mcp ui agent bench): no module
 * imports itself through others, and the library never imports its adapters or the tests.
 * Type-only imports count: a cycle of types still ties the modules together.
 */

/**
 * The assistant's config, the scheduler's config and the service's types (with the session
 * commands the types take SessionModels from) import one another. A cycle is let through only
 * when every module in it is one of these; the exclusion goes when agent/service is reworked and
 * the cycle is broken.
 */
const AGENT_CONFIG_CYCLE = '^agent/(config|scheduler/config|service/types|service/commands)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle: move what both modules need down into a module both can import.',
      from: {},
      to: { circular: true, via: { pathNot: AGENT_CONFIG_CYCLE } },
    },
    {
      name: 'library-not-to-adapters',
      severity: 'error',
      comment:
        'src/ is the library under cli/, mcp/, agent/, ui/ and bench/: it imports none of them, nor the tests.',
      from: { path: '^src/' },
      to: { path: '^(cli|mcp|agent|ui|bench|test)/' },
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
