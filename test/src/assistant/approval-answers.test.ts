import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const ask = (b: TempBrain['brain']) =>
  b.assistant.recordApproval({
    tool: 'run_command',
    args: { command: 'rm x' },
    decision: 'pending',
  });

describe('answering an ask from outside the process that asked', () => {
  it('takes the first decision only, and refuses a later answer saying what became of the ask', async () => {
    t = await tempBrain();
    const b = t.brain;
    const other = await t.reopen();
    const a = ask(b);
    // The owner answers on the page (another connection) before the channel's answer is recorded.
    expect(other.assistant.answerApproval({ id: a.id, decision: 'approved' }).decision).toBe(
      'approved',
    );
    const late = b.assistant.decideApproval({ id: a.id, decision: 'denied', decided_by: 'owner' });
    expect(late.settled).toBe(false);
    expect(late.record).toMatchObject({ decision: 'approved', decided_by: 'owner' });
    expect(() => other.assistant.answerApproval({ id: a.id, decision: 'denied' })).toThrow(
      /^this question is no longer waiting: it was approved by owner at 20\d\d-/,
    );

    const timedOut = ask(b);
    b.assistant.decideApproval({ id: timedOut.id, decision: 'timeout', decided_by: 'owner' });
    let refused: unknown;
    try {
      other.assistant.answerApproval({ id: timedOut.id, decision: 'approved' });
    } catch (err) {
      refused = err;
    }
    const at = b.assistant.getApproval(timedOut.id)!.decided_at!;
    expect(refused).toMatchObject({
      code: 'CONFLICT',
      message: `this question is no longer waiting: it timed out at ${at}`,
    });
    expect(b.assistant.getApproval(timedOut.id)?.decision).toBe('timeout');

    // A stranger's turn asks nobody: its call is denied at once, and the page cannot approve it.
    const stranger = b.assistant.recordApproval({
      tool: 'run_command',
      args: {},
      decision: 'denied',
      decided_by: 'unattended',
    });
    expect(() => other.assistant.answerApproval({ id: stranger.id, decision: 'approved' })).toThrow(
      /no longer waiting: it was denied by unattended/,
    );
    expect(() => other.assistant.answerApproval({ id: 999, decision: 'approved' })).toThrow(
      /no approval 999/,
    );
  });

  it('settles an ask whose process has ended as timed out instead of recording an answer nobody takes', async () => {
    t = await tempBrain();
    const b = t.brain;
    const a = ask(b);
    // A process of this host that has ended: its pid is free.
    const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
    const db = new Database(t.path);
    db.prepare('UPDATE approvals SET pid = ? WHERE id = ?').run(ended, a.id);
    db.close();
    expect(() => b.assistant.answerApproval({ id: a.id, decision: 'approved' })).toThrow(
      /the process that asked it \(\d+\) has ended, so it is recorded as timed out/,
    );
    expect(b.assistant.getApproval(a.id)).toMatchObject({ decision: 'timeout' });
    expect(b.assistant.getApproval(a.id)?.reason).toMatch(/has ended/);
  });
});
