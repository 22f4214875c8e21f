import { afterEach, describe, expect, it } from 'vitest';
import { argsDigest } from '../../../src/index.js';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

describe('approvals in the brain', () => {
  it('stores a digest of the arguments, never the arguments themselves', () => {
    t = tempBrain();
    const r = t.brain.recordApproval({
      tool: 'run_command',
      args: { command: 'rm -rf build', cwd: 'secret-dir' },
      summary: 'rm -rf build',
      decision: 'deny',
      decided_by: 'unattended',
      reason: 'unattended run',
    });
    expect(r.args_digest).toBe(argsDigest({ cwd: 'secret-dir', command: 'rm -rf build' }));
    expect(r.args_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(t.brain.approvals())).not.toContain('secret-dir');
  });

  it('lists a waiting ask as pending until it is settled, newest decision first', () => {
    t = tempBrain();
    const b = t.brain;
    b.recordApproval({ tool: 'read_file', args: {}, decision: 'allow', decided_by: 'policy' });
    const ask = b.recordApproval({ tool: 'write_file', args: { path: 'x' }, decision: 'pending' });
    expect(b.approvals({ pending: true }).map((a) => a.id)).toEqual([ask.id]);
    expect(b.approvals().map((a) => a.tool)).toEqual(['write_file', 'read_file']);
    const settled = b.settleApproval({ id: ask.id, decision: 'timeout', decided_by: 'owner' });
    expect(settled.decision).toBe('timeout');
    expect(settled.decided_at).not.toBeNull();
    expect(b.approvals({ pending: true })).toEqual([]);
    expect(() =>
      b.settleApproval({ id: ask.id, decision: 'approved', decided_by: 'owner' }),
    ).toThrow(/no pending approval/);
  });

  it('refuses to store a shell, an interpreter or a wrapper as an always-rule, and changes nothing', () => {
    t = tempBrain();
    const b = t.brain;
    for (const pattern of [
      'sh *',
      'bash -c *',
      'python3 *',
      'node *',
      'env *',
      'xargs *',
      '/bin/ls *',
    ]) {
      expect(() => b.addApprovalRule({ tool: 'run_command', pattern }), pattern).toThrow(
        /pattern:/,
      );
    }
    expect(b.approvalRules()).toEqual([]);
  });

  it('stores an always-rule once and revokes it by id', () => {
    t = tempBrain();
    const b = t.brain;
    const rule = b.addApprovalRule({ tool: 'run_command', pattern: 'git log *' });
    expect(b.addApprovalRule({ tool: 'run_command', pattern: 'git log *' }).id).toBe(rule.id);
    b.addApprovalRule({ tool: 'write_file', pattern: 'write_file' });
    expect(b.approvalRules()).toHaveLength(2);
    b.revokeApprovalRule(rule.id);
    expect(b.approvalRules().map((r) => r.pattern)).toEqual(['write_file']);
    expect(() => b.revokeApprovalRule(rule.id)).toThrow(/no always-allow rule/);
  });
});
