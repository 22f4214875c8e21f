import { afterEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../../src/brain.js';
import { argsDigest } from '../../../src/index.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

describe('approvals in the brain', () => {
  it('stores a digest of the arguments, never the arguments themselves', async () => {
    t = await tempBrain();
    const r = t.brain.assistant.recordApproval({
      tool: 'run_command',
      args: { command: 'rm -rf build', cwd: 'secret-dir' },
      summary: 'rm -rf build',
      decision: 'deny',
      decided_by: 'unattended',
      reason: 'unattended run',
    });
    expect(r.args_digest).toBe(argsDigest({ cwd: 'secret-dir', command: 'rm -rf build' }));
    expect(r.args_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(t.brain.assistant.approvals())).not.toContain('secret-dir');
  });

  it('lists a waiting ask as pending until it is settled, newest decision first', async () => {
    t = await tempBrain();
    const b = t.brain;
    b.assistant.recordApproval({
      tool: 'read_file',
      args: {},
      decision: 'allow',
      decided_by: 'policy',
    });
    const ask = b.assistant.recordApproval({
      tool: 'write_file',
      args: { path: 'x' },
      decision: 'pending',
    });
    expect(b.assistant.approvals({ pending: true }).map((a) => a.id)).toEqual([ask.id]);
    expect(b.assistant.approvals().map((a) => a.tool)).toEqual(['write_file', 'read_file']);
    const settled = b.assistant.settleApproval({
      id: ask.id,
      decision: 'timeout',
      decided_by: 'owner',
    });
    expect(settled.decision).toBe('timeout');
    expect(settled.decided_at).not.toBeNull();
    expect(b.assistant.approvals({ pending: true })).toEqual([]);
    expect(() =>
      b.assistant.settleApproval({ id: ask.id, decision: 'approved', decided_by: 'owner' }),
    ).toThrow(/no pending approval/);
  });

  it('refuses to store a shell, an interpreter, a wrapper, a path or a wide pattern as an always-rule, and changes nothing', async () => {
    t = await tempBrain();
    const b = t.brain;
    for (const pattern of [
      'exactly sh -c id',
      'exactly bash',
      'exactly python3 x.py',
      'exactly python3.12 x.py',
      'exactly node x.js',
      'exactly env rm x',
      'exactly xargs rm',
      'exactly /bin/ls',
      'git log *',
      'exactly git log *',
      'exactly  git log',
      "exactly 'git' log",
      'in . exactly ls',
    ]) {
      expect(() => b.assistant.addApprovalRule({ tool: 'run_command', pattern }), pattern).toThrow(
        /pattern:/,
      );
    }
    for (const [tool, pattern] of [
      ['write_file', 'write_file'],
      ['write_file', 'path '],
      ['send_message', 'send_message'],
      ['mcp__github__create_issue', 'mcp__github__*'],
      ['save_memory', 'save_memory'],
    ] as const)
      expect(() => b.assistant.addApprovalRule({ tool, pattern }), pattern).toThrow(/pattern:/);
    expect(b.assistant.approvalRules()).toEqual([]);
  });

  it('stores an always-rule once, says what it matches, and revokes it by id', async () => {
    t = await tempBrain();
    const b = t.brain;
    const rule = b.assistant.addApprovalRule({
      tool: 'run_command',
      pattern: 'exactly git log -5',
    });
    expect(
      b.assistant.addApprovalRule({ tool: 'run_command', pattern: 'exactly git log -5' }).id,
    ).toBe(rule.id);
    b.assistant.addApprovalRule({ tool: 'run_command', pattern: `in 'a b' exactly grep -n 'x y'` });
    b.assistant.addApprovalRule({ tool: 'write_file', pattern: 'path notes/todo.md' });
    b.assistant.addApprovalRule({ tool: 'send_message', pattern: 'to nova' });
    b.assistant.addApprovalRule({
      tool: 'mcp__github__create_issue',
      pattern: 'mcp__github__create_issue',
    });
    expect(b.assistant.approvalRules().map((r) => [r.tool, r.matches, r.active])).toEqual([
      ['mcp__github__create_issue', 'any input (every call of this tool)', true],
      ['send_message', 'to nova', true],
      ['write_file', 'path notes/todo.md', true],
      ['run_command', `grep -n 'x y' (exactly, in 'a b')`, true],
      ['run_command', 'git log -5 (exactly)', true],
    ]);
    b.assistant.revokeApprovalRule(rule.id);
    expect(b.assistant.approvalRules()).toHaveLength(4);
    expect(() => b.assistant.revokeApprovalRule(rule.id)).toThrow(/no always-allow rule/);
  });

  it('reads a rule stored in the old, wider form as inactive: it matches nothing', async () => {
    t = await tempBrain();
    // Stored as an older version did, past today's validation.
    const insert = connectionOf(t.brain).prepare(
      `INSERT INTO approval_rules (tool, pattern, created_at) VALUES (?, ?, 0)`,
    );
    insert.run('run_command', 'git push *');
    insert.run('write_file', 'write_file');
    const rules = t.brain.assistant.approvalRules();
    expect(rules.map((r) => r.active)).toEqual([false, false]);
    expect(rules[0]!.matches).toMatch(/^nothing: "write_file" is an old, wider form/);
    expect(rules[1]!.matches).toMatch(/^nothing: "git push \*" is an old, wider form/);
  });

  it('records a call of any length and any characters without throwing, cut where the cut shows', async () => {
    t = await tempBrain();
    const long = `run_command command: \0\ud800${'x'.repeat(20_000)}`;
    const r = t.brain.assistant.recordApproval({
      tool: 'run_command',
      args: { command: long },
      summary: long,
      decision: 'deny',
      decided_by: 'policy',
      reason: 'y'.repeat(5_000),
    });
    expect(r.summary.length).toBeLessThanOrEqual(4000);
    expect(r.summary).toMatch(/… \[cut: 20,0\d\d characters in all\]$/);
    expect(r.summary.startsWith('run_command command: \\x00\\u{d800}xxx')).toBe(true);
    expect(r.reason).toMatch(/… \[cut: 5,000 characters in all\]$/);
  });
});
