import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ApprovalAnswer, ApprovalRequest } from '../../../agent/permissions/approvals.js';
import {
  createPolicy,
  permissionsConfig,
  type JudgeCommand,
} from '../../../agent/permissions/policy.js';
import type { ChatMessage } from '../../../agent/models/types.js';
import type { Tool } from '../../../agent/tools/types.js';
import { assistantFixture, type AssistantFixture } from '../helpers.js';

let f: AssistantFixture;
afterEach(async () => {
  vi.useRealTimers();
  await f?.close();
});

/** A run_command stand-in that only notes what it was asked to run. */
const ran: string[] = [];
const fakeRunCommand: Tool = {
  name: 'run_command',
  description: 'run a command',
  schema: z.strictObject({ command: z.string() }),
  readOnly: false,
  run: async (input) => {
    ran.push((input as { command: string }).command);
    // The owner's own output: these tests are about approvals, not about foreign content.
    return { content: 'done', untrusted: false };
  },
};
const judge: JudgeCommand = async (command) => ({
  verdict: 'ask',
  reason: 'not on the safe list',
  commands: [{ argv: command.split(' ') }],
  simple: true,
});

async function setup(tools: Record<string, 'allow' | 'ask' | 'deny'> = {}) {
  ran.length = 0;
  f = await assistantFixture();
  f.tools.push(fakeRunCommand);
  const policy = createPolicy({
    config: permissionsConfig.parse({ tools }),
    judgeCommand: judge,
    rules: () => f.t.brain.assistant.approvalRules(),
  });
  return { policy, timeoutMs: 120_000 };
}

const rm = (id = 'toolu_rm') => ({ id, name: 'run_command', input: { command: 'rm -rf build' } });
const lastResult = (i: number) =>
  (f.fake.requests[i]!.body.messages as ChatMessage[]).at(-1)!.content[0] as {
    content: string;
    is_error?: boolean;
  };

describe('approvals in the loop', () => {
  it('denies an ask nobody answers at the timeout, and the turn goes on to its reply', async () => {
    const permissions = await setup();
    f.fake.script.push({ toolUses: [rm()] }, { text: 'I could not delete it.' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const asked: ApprovalRequest[] = [];
    let resolveAsked!: () => void;
    const wasAsked = new Promise<void>((r) => (resolveAsked = r));
    const turn = f.turn('delete build/', {
      permissions,
      io: {
        onText: () => {},
        askApproval: (req) => {
          asked.push(req);
          resolveAsked();
          return new Promise<ApprovalAnswer>(() => {});
        },
      },
    });
    await wasAsked;
    expect(f.t.brain.assistant.approvals({ pending: true })).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(119_000);
    expect(f.t.brain.assistant.approvals({ pending: true })).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    const result = await turn;

    expect(result.reply).toBe('I could not delete it.');
    expect(ran).toEqual([]);
    expect(asked[0]).toMatchObject({
      tool: 'run_command',
      summary: 'run_command command: rm -rf build',
      display: 'run_command command: rm -rf build',
    });
    expect(asked[0]!.signal.aborted).toBe(true);
    expect(lastResult(1)).toMatchObject({ is_error: true });
    expect(lastResult(1).content).toMatch(/did not answer within 120 s/);
    const [record] = f.t.brain.assistant.approvals();
    expect(record).toMatchObject({
      tool: 'run_command',
      summary: 'run_command command: rm -rf build',
      decision: 'timeout',
      message_id: result.messageIds.user,
    });
  });

  it('shows the model a call the config denies as an error result, and records the refusal', async () => {
    const permissions = await setup({ run_command: 'deny' });
    f.fake.script.push({ toolUses: [rm()] }, { text: 'Not allowed.' });
    const asked: string[] = [];
    const result = await f.turn('delete build/', {
      permissions,
      io: { onText: () => {}, askApproval: async (r) => (asked.push(r.tool), 'approve') },
    });
    expect(ran).toEqual([]);
    expect(asked).toEqual([]);
    expect(lastResult(1)).toMatchObject({ is_error: true });
    expect(lastResult(1).content).toMatch(
      /^denied by policy: permissions.tools.run_command is deny/,
    );
    expect(f.t.brain.assistant.approvals()[0]).toMatchObject({
      decision: 'deny',
      decided_by: 'policy',
    });
    expect(result.reply).toBe('Not allowed.');
  });

  it('denies every ask in an unattended run without asking', async () => {
    const permissions = await setup();
    f.fake.script.push({ toolUses: [rm()] }, { text: 'ok' });
    const asked: string[] = [];
    await f.turn('cron: clean up', {
      permissions,
      unattended: true,
      io: { onText: () => {}, askApproval: async (r) => (asked.push(r.tool), 'approve') },
    });
    expect(asked).toEqual([]);
    expect(ran).toEqual([]);
    expect(lastResult(1).content).toMatch(/unattended/);
    expect(f.t.brain.assistant.approvals()[0]).toMatchObject({
      decision: 'denied',
      decided_by: 'unattended',
    });
  });

  it('runs an approved call, and after "always" runs exactly that command again without asking, but nothing else', async () => {
    const permissions = await setup();
    const git = (id: string, command: string) => ({ id, name: 'run_command', input: { command } });
    f.fake.script.push(
      { toolUses: [git('toolu_1', 'git push origin main')] },
      { text: 'pushed' },
      { toolUses: [git('toolu_2', 'git push origin main')] },
      { text: 'pushed again' },
      { toolUses: [git('toolu_3', 'git push origin dev')] },
      { text: 'asked about dev' },
      { toolUses: [git('toolu_4', 'git push --force origin main')] },
      { text: 'asked about force' },
    );
    const asked: ApprovalRequest[] = [];
    const io = {
      onText: () => {},
      askApproval: async (r: ApprovalRequest): Promise<ApprovalAnswer> => {
        asked.push(r);
        return 'always';
      },
    };
    await f.turn('push', { permissions, io });
    expect(asked[0]).toMatchObject({
      alwaysPattern: 'exactly git push origin main',
      alwaysText: 'run_command: git push origin main (exactly)',
    });
    const [stored] = f.t.brain.assistant.approvalRules();
    expect(stored).toMatchObject({
      tool: 'run_command',
      pattern: 'exactly git push origin main',
      active: true,
      matches: 'git push origin main (exactly)',
    });
    await f.turn('push again', { permissions, io });
    expect(asked).toHaveLength(1);
    expect(ran).toEqual(['git push origin main', 'git push origin main']);
    expect(f.t.brain.assistant.approvals().map((a) => [a.decision, a.decided_by])).toEqual([
      ['allow', 'always'],
      ['approved', 'owner'],
    ]);
    await f.turn('push dev', { permissions, io });
    await f.turn('force it', { permissions, io });
    expect(asked.map((r) => r.summary)).toEqual([
      'run_command command: git push origin main',
      'run_command command: git push origin dev',
      'run_command command: git push --force origin main',
    ]);
    // A force push is never stored: "always" approved it once.
    expect(asked[2]!.alwaysPattern).toBeUndefined();
    expect(f.t.brain.assistant.approvalRules().map((r) => r.pattern)).toEqual([
      'exactly git push origin dev',
      'exactly git push origin main',
    ]);

    for (const r of f.t.brain.assistant.approvalRules())
      f.t.brain.assistant.revokeApprovalRule(r.id);
    f.fake.script.push({ toolUses: [git('toolu_5', 'git push origin dev')] }, { text: 'asked' });
    await f.turn('once more', { permissions, io });
    expect(asked).toHaveLength(4);
  });

  it('denies an ask that is waiting when the turn is cancelled', async () => {
    const permissions = await setup();
    f.fake.script.push({ toolUses: [rm()] }, { text: 'unused' });
    const controller = new AbortController();
    const result = await f.turn('delete build/', {
      permissions,
      signal: controller.signal,
      io: {
        onText: () => {},
        askApproval: () => {
          controller.abort(new Error('cancelled'));
          return new Promise<ApprovalAnswer>(() => {});
        },
      },
    });
    expect(result.cancelled).toBe(true);
    expect(ran).toEqual([]);
    expect(f.t.brain.assistant.approvals()[0]).toMatchObject({
      decision: 'denied',
      reason: 'the turn was cancelled while asking',
    });
  });
});
