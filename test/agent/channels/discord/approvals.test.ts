import { describe, expect, it, vi } from 'vitest';
import {
  approvalText,
  createDiscordApprovals,
  type ApprovalTransport,
} from '../../../../agent/channels/discord/approvals.js';
import {
  AnsweredElsewhere,
  AskCancelled,
  type ApprovalRequest,
} from '../../../../agent/permissions/approvals.js';
import type { ApprovalRecord } from '../../../../src/index.js';
import type { ButtonInteraction } from 'discord.js';

/** The approval buttons' bookkeeping, with a recording transport (the wire is covered end to end). */

function setup() {
  const calls: Array<{ op: 'post' | 'edit'; channelId: string; body: Record<string, unknown> }> =
    [];
  let posted: () => void = () => {};
  const wasPosted = new Promise<void>((r) => (posted = r));
  const transport: ApprovalTransport = {
    post: async (channelId, body) => {
      calls.push({ op: 'post', channelId, body });
      posted();
      return { id: '77' };
    },
    edit: async (channelId, _id, body) => {
      calls.push({ op: 'edit', channelId, body });
    },
  };
  const lines: string[] = [];
  const clock = { now: 0 };
  const approvals = createDiscordApprovals({
    transport,
    isOwner: (id) => id === 'owner',
    log: () => (level, event) => lines.push(`${level} ${event}`),
    now: () => clock.now,
  });
  return { approvals, calls, wasPosted, lines, clock };
}

const request = (signal: AbortSignal, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  tool: 'run_command',
  input: { command: 'rm -rf build' },
  display: 'run_command command: rm -rf build',
  summary: 'run_command command: rm -rf build',
  reason: 'deletes files',
  signal,
  ...extra,
});

/** A button press as discord.js hands it over: only what the approvals read and call. */
function press(customId: string, userId: string) {
  const answered: Array<{ how: 'update' | 'reply'; body: Record<string, unknown> }> = [];
  const interaction = {
    customId,
    user: { id: userId },
    update: async (body: Record<string, unknown>) => void answered.push({ how: 'update', body }),
    reply: async (body: Record<string, unknown>) => void answered.push({ how: 'reply', body }),
  } as unknown as ButtonInteraction;
  return { interaction, answered };
}

const customIds = (calls: ReturnType<typeof setup>['calls']) =>
  (
    calls[0]!.body.components as Array<{ components: Array<{ custom_id: string }> }>
  )[0]!.components.map((c) => c.custom_id);

describe('Discord approvals', () => {
  it('when the ask expires the answer is deny and the buttons are removed from the message', async () => {
    const s = setup();
    const expiry = new AbortController();
    const answer = s.approvals.ask('5', request(expiry.signal));
    await s.wasPosted;
    s.clock.now += 300_000;
    expiry.abort();
    await expect(answer).resolves.toBe('deny');
    expect(s.calls.at(-1)).toMatchObject({ op: 'edit', channelId: '5', body: { components: [] } });
    expect(String(s.calls.at(-1)!.body.content)).toMatch(/→ Denied: no answer within 300 s$/);
    expect(s.approvals.pendingCount()).toBe(0);
  });

  it('says the ask was answered elsewhere, or its turn stopped, rather than that nobody answered', async () => {
    const s = setup();
    const elsewhere = new AbortController();
    const first = s.approvals.ask('5', request(elsewhere.signal));
    await s.wasPosted;
    elsewhere.abort(
      new AnsweredElsewhere({
        decision: 'approved',
        reason: 'decided in brain ui',
      } as ApprovalRecord),
    );
    await expect(first).resolves.toBe('deny');
    expect(String(s.calls.at(-1)!.body.content)).toMatch(
      /→ Approved elsewhere \(decided in brain ui\)$/,
    );
    const stopped = new AbortController();
    const second = s.approvals.ask('5', request(stopped.signal));
    await vi.waitFor(() => expect(s.calls.filter((c) => c.op === 'post')).toHaveLength(2));
    stopped.abort(new AskCancelled());
    await expect(second).resolves.toBe('deny');
    expect(String(s.calls.at(-1)!.body.content)).toMatch(/→ Not answered: the turn was stopped$/);
  });

  it('offers Always only when the call has a pattern that can be allowed always', async () => {
    const s = setup();
    const c = new AbortController();
    void s.approvals.ask(
      '5',
      request(c.signal, {
        alwaysPattern: 'exactly rm -f -r build',
        alwaysText: 'run_command: rm -f -r build (exactly)',
      }),
    );
    await s.wasPosted;
    expect(customIds(s.calls).map((id) => id.split(':')[2])).toEqual(['approve', 'always', 'deny']);
    for (const id of customIds(s.calls)) expect(id.length).toBeLessThanOrEqual(100);
    expect(String(s.calls[0]!.body.content)).toContain(
      'always allows: run_command: rm -f -r build (exactly)',
    );

    const once = setup();
    void once.approvals.ask('5', request(c.signal));
    await once.wasPosted;
    expect(customIds(once.calls).map((id) => id.split(':')[2])).toEqual(['approve', 'deny']);
    expect(String(once.calls[0]!.body.content)).toContain('always: not offered');
  });

  it("the owner's Deny answers deny; a press after that finds nothing waiting and only clears the buttons", async () => {
    const s = setup();
    const c = new AbortController();
    const answer = s.approvals.ask('5', request(c.signal));
    await s.wasPosted;
    const deny = customIds(s.calls).find((id) => id.endsWith(':deny'))!;
    const first = press(deny, 'owner');
    expect(await s.approvals.handle(first.interaction)).toBe(true);
    await expect(answer).resolves.toBe('deny');
    expect(first.answered[0]).toMatchObject({ how: 'update', body: { components: [] } });
    const late = press(deny, 'owner');
    await s.approvals.handle(late.interaction);
    expect(late.answered).toEqual([{ how: 'update', body: { components: [] } }]);
  });

  it("a button that is not an approval's is left to others", async () => {
    const s = setup();
    expect(await s.approvals.handle(press('something-else', 'owner').interaction)).toBe(false);
  });

  it('the question is cut visibly to fit one Discord message, its code block still closed', () => {
    const text = approvalText(request(new AbortController().signal, { display: 'x'.repeat(5000) }));
    expect(text.length).toBeLessThanOrEqual(1900);
    expect(text).toMatch(/… \[cut: [\d,]+ characters in all\]\n```$/);
  });
});
