// zod's problems in the library's words. Types only from zod: the library never loads it, the
// adapters that check their own settings with zod (the assistant's config) pass its errors here.
import type * as Zod from 'zod';

/** "body: is required; priority: must be one of …" — every problem, each naming its field. */
export function formatZodError(error: Zod.ZodError, names: Record<string, string> = {}): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const field = names[path] ?? (path || 'input');
      return `${field}: ${describeIssue(issue)}`;
    })
    .join('; ');
}

function describeIssue(issue: Zod.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message))
    return 'is required';
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  return issue.message.replace(/^Invalid input: /, '');
}
