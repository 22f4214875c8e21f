import { migrateCortex } from '../legacy/cortex.js';
import { migrateSynapse } from '../legacy/synapse.js';
import { exportBrain, type ExportInput } from './export.js';
import { importBrain } from './import.js';

import type { BrainContext } from '../context.js';

/** The brain as a document: export, import, and migration from other tools. */
export interface TransferSection {
  export: (input?: ExportInput) => ReturnType<typeof exportBrain>;
  import: (doc: unknown) => ReturnType<typeof importBrain>;
  migrateSynapse: (path: string) => ReturnType<typeof migrateSynapse>;
  migrateCortex: (path: string, defaultAgent?: string) => ReturnType<typeof migrateCortex>;
}

export function transferSection(ctx: BrainContext, dbPath: string): TransferSection {
  return {
    export: (input) => exportBrain(ctx, input, dbPath),
    import: (doc) => importBrain(ctx, doc, dbPath),
    migrateSynapse: (path) => migrateSynapse(ctx, path),
    migrateCortex: (path, defaultAgent) => migrateCortex(ctx, path, defaultAgent),
  };
}
