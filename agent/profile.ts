import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Brain, ProfileFact } from '../src/index.js';

/**
 * Who the owner is, in the system prompt: USER.md from the workspace (the owner's own words about
 * themselves, read again only when its size or times change) and the profile facts the assistant
 * learned from the owner's messages (`save_memory` with the category `profile`), newest first,
 * together at most `maxChars`. Shown only in turns that may read the owner's data.
 */

export const USER_FILE = 'USER.md';
/** The most characters the profile section takes, by default. */
export const PROFILE_MAX_CHARS = 4000;
/** The most facts looked at for the prompt. */
const FACTS_READ = 50;

const TAG = 'owner-profile';

interface Cached {
  stamp: string;
  text: string | undefined;
}

/** USER.md, read once per change; one cache per process, keyed by the file's path. */
export function createUserFile(): (workspace: string) => string | undefined {
  const cache = new Map<string, Cached>();
  return (workspace) => {
    const path = join(workspace, USER_FILE);
    let stamp = 'missing';
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat) stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
    } catch (err) {
      // A workspace path through a file (ENOTDIR) has no USER.md; anything else is said below.
      stamp = (err as NodeJS.ErrnoException).code ?? 'error';
    }
    const hit = cache.get(path);
    if (hit?.stamp === stamp) return hit.text;
    let text: string | undefined;
    if (stamp !== 'missing' && stamp !== 'ENOTDIR') {
      try {
        text = readFileSync(path, 'utf8').trim() || undefined;
      } catch (err) {
        text = `(${USER_FILE} could not be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      }
    }
    cache.set(path, { stamp, text });
    return text;
  };
}

export interface ProfileSectionInput {
  brain: Brain;
  workspace: string;
  owner: string;
  assistant: string;
  userFile: (workspace: string) => string | undefined;
  maxChars?: number;
}

/** The profile section, or undefined when there is neither USER.md nor a fact. */
export function profileSection(input: ProfileSectionInput): string | undefined {
  const max = input.maxChars ?? PROFILE_MAX_CHARS;
  const user = input.userFile(input.workspace);
  const facts = input.brain.knowledge.profile(
    { owner: input.owner, assistant: input.assistant },
    FACTS_READ,
  );
  if (user === undefined && facts.length === 0) return undefined;
  const parts: string[] = [];
  let left = max;
  if (user !== undefined) {
    const text = user.length > left ? `${user.slice(0, left)}\n[… ${USER_FILE} cut]` : user;
    parts.push(`<file name="${USER_FILE}">\n${defuse(text)}\n</file>`);
    left -= text.length;
  }
  const lines: string[] = [];
  for (const fact of facts) {
    const line = factLine(fact);
    if (line.length + 1 > left) break;
    lines.push(line);
    left -= line.length + 1;
  }
  if (lines.length > 0)
    parts.push(
      `Facts learned from the owner's own messages, newest first (id, date; cite the id):\n${lines.join('\n')}`,
    );
  return [
    `About the owner (${input.owner}): what they wrote about themselves and told you.`,
    `<${TAG}>`,
    ...parts,
    `</${TAG}>`,
  ].join('\n');
}

function factLine(fact: ProfileFact): string {
  const key = fact.key ? `${fact.key}: ` : '';
  const text = fact.content.replace(/\s+/g, ' ').trim();
  return `- [${fact.id}, ${fact.created_at.slice(0, 10)}] ${key}${defuse(text)}`;
}

function defuse(text: string): string {
  return text.replace(/<(\/?)owner-profile/gi, '‹$1owner-profile');
}
