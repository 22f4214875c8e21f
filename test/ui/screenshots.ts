/**
 * The README's screenshots of `brain ui` (thread page, provenance page) from a seeded demo brain,
 * taken with the browser tests' helpers. Usage: npm run build && npx tsx test/ui/screenshots.ts
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openBrain } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers.js';
import { browserMissing, launchBrowser, spawnUi } from './browser.js';
import { seedBrain } from './seed.js';

const missing = browserMissing();
if (missing) {
  console.error(`screenshots: ${missing}`);
  process.exit(1);
}
const tmp = tempDir('brain-ui-shots-');
const dbPath = join(tmp.dir, 'brain.db');
const brain = await openBrain({ dbPath });
const seeded = seedBrain(brain);
brain.close();
const ui = await spawnUi(dbPath);
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 720 } });
  for (const [path, file] of [
    [`/threads/${seeded.thread}`, 'ui-thread.png'],
    [`/provenance/${seeded.atoms[1]}`, 'ui-provenance.png'],
  ] as const) {
    await page.goto(ui.url + path);
    const out = join(ROOT, 'docs', file);
    await page.screenshot({ path: out });
    console.log(`${out}: ${Math.round(statSync(out).size / 1024)} KB`);
  }
} finally {
  await browser.close();
  await ui.stop();
  tmp.cleanup();
}
