import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearerToken, parseTokens, readTokensFile } from '../../mcp/access.js';
import { tempDir } from '../helpers.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

describe('tokens file', () => {
  it('maps each token to its agent, ignoring comments and blank lines', () => {
    const table = parseTokens(`# who is who\n\n${A} alice\n  ${B}\tbob  \n`);
    expect(table.size).toBe(2);
    expect(table.agentFor(A)).toBe('alice');
    expect(table.agentFor(B)).toBe('bob');
    expect(table.agentFor(`${A}x`)).toBeUndefined();
    expect(table.agentFor('')).toBeUndefined();
    expect(table.agents()).toEqual(['alice', 'bob']);
  });

  it('rejects bad lines naming the line, never echoing the token', () => {
    const secret = 's3cr3t-'.repeat(4);
    const cases: Array<[string, RegExp]> = [
      [`${secret}`, /line 1: expected "TOKEN AGENT"/],
      [`${secret} alice extra`, /line 1: expected "TOKEN AGENT"/],
      [`# c\nshort alice`, /line 2: the token is too short/],
      [`${secret} "not an agent"`, /line 1: expected/],
      [`${secret} al!ce`, /line 1: agent must be letters/],
      [`${secret} alice\n${secret} bob`, /line 2: the token is repeated/],
      ['# only comments\n', /no "TOKEN AGENT" lines/],
    ];
    for (const [text, message] of cases) {
      let error: Error | undefined;
      try {
        parseTokens(text);
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message, text).toMatch(message);
      expect(error?.message, text).not.toContain('s3cr3t');
    }
  });

  it('reads a file and warns when others can read it', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'tokens');
      writeFileSync(path, `${A} alice\n`);
      chmodSync(path, 0o600);
      expect(readTokensFile(path).warnings).toEqual([]);
      chmodSync(path, 0o644);
      expect(readTokensFile(path).warnings[0]).toMatch(/readable by other users/);
      expect(() => readTokensFile(join(dir, 'missing'))).toThrow(/--tokens: cannot read/);
    } finally {
      cleanup();
    }
  });

  it('takes the token of a Bearer header only', () => {
    expect(bearerToken(`Bearer ${A}`)).toBe(A);
    expect(bearerToken(`bearer   ${A} `)).toBe(A);
    expect(bearerToken(`Basic ${A}`)).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
