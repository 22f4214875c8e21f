// Installs this clone the way the README tells a user to (`npm install -g .`), into a temporary
// global prefix, then runs the installed `brain` from another folder: `--version`, `doctor` (the
// ranking extension is found) and an MCP initialize over stdio with the SDK's client.
// Run it after `npm install` or `npm ci` in the clone: for a folder, npm links it rather than
// copying it, and runs none of its scripts, so dist/ and the native builds must already be there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function fail(message) {
  throw new Error(message);
}

const prefix = mkdtempSync(join(tmpdir(), 'brain-prefix-'));
const elsewhere = mkdtempSync(join(tmpdir(), 'brain-elsewhere-'));
const binDir = join(prefix, 'bin');
const env = {
  ...getDefaultEnvironment(),
  PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
  BRAIN_DB: join(elsewhere, 'brain.db'),
  BRAIN_EMBEDDER: 'none',
};

/** Runs `brain ARGS` as a user would: found on PATH, from a folder that is not the clone. */
function brain(args) {
  const r = spawnSync('brain', args, { cwd: elsewhere, env, encoding: 'utf8' });
  if (r.error) fail(`brain ${args.join(' ')}: ${r.error.message}`);
  return r;
}

try {
  // npm sets npm_execpath for the scripts it runs; otherwise the npm on PATH.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const install = spawnSync(
    npm[0],
    [
      ...npm.slice(1),
      'install',
      '--global',
      '--prefix',
      prefix,
      '--offline',
      '--no-audit',
      '--no-fund',
      root,
    ],
    { cwd: elsewhere, encoding: 'utf8' },
  );
  if (install.status !== 0) fail(`npm install -g failed:\n${install.stderr}`);

  const installed = join(prefix, 'lib', 'node_modules', manifest.name);
  if (!existsSync(join(binDir, 'brain'))) fail(`no brain in ${binDir}`);
  if (realpathSync(installed) !== realpathSync(root))
    fail(`${installed} is not a link to the clone ${root}`);
  console.log(`installed: ${join(binDir, 'brain')} -> ${realpathSync(join(binDir, 'brain'))}`);

  const version = brain(['--version']);
  if (version.status !== 0 || version.stdout.trim() !== manifest.version)
    fail(`brain --version printed ${JSON.stringify(version.stdout)}, want ${manifest.version}`);
  console.log(`brain --version: ${version.stdout.trim()}`);

  // A read never creates a brain: make it first, as a user's first write would.
  const made = brain(['send', '--agent', 'ci', '--to', 'ci', '--body', 'hello']);
  if (made.status !== 0) fail(`brain send failed (${made.status}):\n${made.stdout}${made.stderr}`);
  const doctor = brain(['doctor', '--json']);
  if (doctor.status !== 0)
    fail(`brain doctor failed (${doctor.status}):\n${doctor.stdout}${doctor.stderr}`);
  console.log('brain doctor: every check passes (the ranking extension is loaded)');

  const transport = new StdioClientTransport({
    command: 'brain',
    args: ['mcp', '--agent', 'ci'],
    cwd: elsewhere,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d.toString()));
  const client = new Client({ name: 'check-global-install', version: manifest.version });
  try {
    await client.connect(transport);
    const server = client.getServerVersion();
    if (server?.name !== 'brain' || server.version !== manifest.version)
      fail(`brain mcp introduced itself as ${JSON.stringify(server)}`);
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === 'send_message')) fail('brain mcp lists no send_message');
    console.log(
      `brain mcp: initialize answered by ${server.name} ${server.version}, ${tools.length} tools`,
    );
  } catch (err) {
    if (stderr) console.error(stderr);
    throw err;
  } finally {
    await client.close();
  }
  console.log('check-global-install: the installed brain works from another folder');
} catch (err) {
  console.error(`check-global-install: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  rmSync(prefix, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
}
