import { z } from 'zod';
import { formatZodError } from '../../src/index.js';

/**
 * A SKILL.md as Anthropic's Agent Skills write it: YAML front matter between `---` lines with
 * `name` and `description`, then a body of instructions in Markdown. `name` is lowercase letters,
 * digits and hyphens, at most 64, the same as the skill's folder; `description` at most 1,024
 * characters. `license`, `compatibility`, `allowed-tools` and `metadata` are the format's own and
 * are kept as they are (`allowed-tools` grants nothing here: the policy judges every call).
 * `mcpServers` declares MCP servers in the shape of the assistant's config.
 */

/** A skill's instructions, in its folder. */
export const SKILL_FILE = 'SKILL.md';
export const SKILL_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const DESCRIPTION_MAX = 1024;

const frontMatter = z.looseObject({
  name: z
    .string()
    .regex(SKILL_NAME, 'must be 1-64 lowercase letters, digits or hyphens (not at either end)'),
  description: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
});

export interface ParsedSkill {
  name: string;
  description: string;
  /** The instructions after the front matter. */
  body: string;
  /** `mcpServers` as written; each entry is checked as the config's are (agent/mcp/config.ts). */
  mcpServers: Record<string, unknown>;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * The front matter and body of a SKILL.md, or what is wrong with it (naming the field). The YAML
 * is parsed by the `yaml` package, given as `parseYaml`, so that it loads only where skills exist.
 */
export function parseSkill(
  text: string,
  folder: string,
  parseYaml: (source: string) => unknown,
): ParsedSkill | { error: string } {
  const source = text.replace(/^\uFEFF/, '');
  const fence = FENCE.exec(source);
  if (!fence) return { error: 'no front matter: SKILL.md must start with a --- line' };
  let data: unknown;
  try {
    data = parseYaml(fence[1]!);
  } catch (err) {
    return { error: `front matter: not valid YAML: ${firstLine((err as Error).message)}` };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return { error: 'front matter: must be a mapping of keys to values' };
  const parsed = frontMatter.safeParse(data);
  if (!parsed.success)
    return { error: `front matter: ${formatZodError(parsed.error).replace(/^input: /, '')}` };
  const { name, description, mcpServers } = parsed.data;
  if (name !== folder)
    return {
      error: `front matter: name: is ${name}, but the folder is ${folder}: they must match`,
    };
  return { name, description, body: source.slice(fence[0].length), mcpServers: mcpServers ?? {} };
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
