// Regenerate schema.sql from migrations/: `npm run schema`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { packageRoot } from '../src/db/package-root.js';
import { dumpSchema } from '../src/db/schema-dump.js';

const db = openDatabase(':memory:');
const target = join(packageRoot(), 'schema.sql');
writeFileSync(target, dumpSchema(db));
db.close();
console.log(`wrote ${target}`);
