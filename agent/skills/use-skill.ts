import { promises as fs } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod';
import type { Tool } from '../tools/types.js';
import { SKILL_FILE } from './parse.js';
import type { SkillSet } from './types.js';

/**
 * `use_skill {name, file?}`: a skill's instructions (its SKILL.md body and the list of the files
 * beside it), or one of those files. Reads only inside the skill's folder: the path is resolved
 * with its symlinks and refused when it lands outside. What it answers is marked as data from
 * outside the owner (a skill may come from anywhere), so the turn that reads it is tainted: from
 * then on a call that sends data out, reads a secret or writes the workspace needs the owner's yes.
 */

export const USE_SKILL = 'use_skill';
/** The most of one file given to the model, in bytes. */
const MAX_FILE_BYTES = 64 * 1024;
/** The most files listed under a skill's instructions. */
const MAX_LISTED = 100;

const input = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(64).describe('The skill'),
  file: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(1000)
    .optional()
    .describe("A file in the skill's folder (relative); default its instructions"),
});
type UseSkillInput = z.output<typeof input>;

/** `current` gives the skills as they are now (agent/skills/catalog.ts). */
export function createUseSkillTool(current: () => Promise<SkillSet>): Tool<UseSkillInput> {
  return {
    name: USE_SKILL,
    description:
      "Read a skill's instructions (from the Skills list) or one of the files in its folder.",
    schema: input,
    readOnly: true,
    ownerData: false,
    async run({ name, file }) {
      const { skills } = await current();
      const skill = skills.find((s) => s.name === name);
      if (!skill) {
        const known = skills.map((s) => s.name).join(', ') || 'none';
        return { content: `no skill named ${name}; the skills are: ${known}`, isError: true };
      }
      if (file === undefined) {
        const files = await listFiles(skill.dir);
        const listed =
          files.length === 0
            ? ''
            : `\n\nFiles in the skill's folder (read one with use_skill {name, file}):\n${files
                .map((f) => `- ${f}`)
                .join('\n')}`;
        return { content: `${skill.body.trim()}${listed}`, untrusted: true };
      }
      const read = await readInside(skill.dir, file);
      if ('refused' in read) return { content: read.refused, isError: true };
      return { content: read.text, untrusted: true };
    },
  };
}

function inside(dir: string, real: string): boolean {
  const rel = relative(dir, real);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`);
}

/** A file of the skill's folder as text; refused outside it (after symlinks), too big, or not text. */
async function readInside(
  dir: string,
  file: string,
): Promise<{ text: string } | { refused: string }> {
  if (isAbsolute(file)) return { refused: `file: must be a path relative to the skill's folder` };
  let real: string;
  try {
    real = await fs.realpath(join(dir, file));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      refused: code === 'ENOENT' ? `no file ${file} in the skill` : `cannot read ${file}: ${code}`,
    };
  }
  if (!inside(dir, real)) return { refused: `file: ${file} is outside the skill's folder` };
  const handle = await fs.open(real, 'r');
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { refused: `file: ${file} is not a file` };
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_FILE_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return { refused: `file: ${file} is not text` };
    const text = bytes.toString('utf8').replace(/\uFFFD$/, '');
    return {
      text:
        stat.size > MAX_FILE_BYTES
          ? `${text}\n[… cut: the file is ${stat.size} bytes; the first ${MAX_FILE_BYTES} are shown]`
          : text,
    };
  } finally {
    await handle.close();
  }
}

/** The files of a skill's folder besides SKILL.md, relative, at most MAX_LISTED, links not followed. */
async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (sub: string, depth: number): Promise<void> => {
    if (depth > 4 || out.length >= MAX_LISTED) return;
    const entries = await fs.readdir(join(dir, sub), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (out.length >= MAX_LISTED) return;
      if (e.name.startsWith('.')) continue;
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(rel, depth + 1);
      else if (rel !== SKILL_FILE) out.push(rel);
    }
  };
  await walk('', 0);
  return out;
}
