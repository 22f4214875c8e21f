import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { Api } from 'grammy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askOnTerminal } from '../../agent/chat.js';
import {
  approvalText,
  createDiscordApprovals,
  type ApprovalTransport,
} from '../../agent/channels/discord/approvals.js';
import { createApprovalPrompts } from '../../agent/channels/telegram/approvals.js';
import { gateToolCall, type ApprovalRequest } from '../../agent/permissions/approvals.js';
import { describeCall, promptText } from '../../agent/permissions/describe.js';
import {
  createPolicy,
  permissionsConfig,
  type JudgeCommand,
} from '../../agent/permissions/policy.js';
import { createRunCommandTool } from '../../agent/tools/run-command.js';
import { sendMessageTool } from '../../agent/tools/send-message.js';
import type { Tool } from '../../agent/tools/types.js';
import { createWriteFileTool } from '../../agent/tools/write-file.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram.js';
import { tally } from './tally.js';

/**
 * Approvals show what will run. Each hostile call goes through the real gate (a temp brain, the
 * policy with a judge that asks for every command) to the owner's prompt; the request it asks
 * with is then shown by the terminal prompt (a real readline), the Telegram prompts (grammY's Api
 * against the fake Bot API) and the Discord prompts. Each must show the real path, recipient and
 * escaped form, hold no raw control or invisible character, show the same text, and the brain
 * must record exactly what was shown.
 */

const t = tally('prompts');

/** Every command asks; the reason names the program, as a real judge's does. */
const judge: JudgeCommand = async (command) => ({
  verdict: 'ask',
  reason: `not on the safe list: ${command.split(' ')[0]}`,
  commands: [{ argv: command.split(' ') }],
  simple: true,
});

const mcpTool: Tool = {
  name: 'mcp__notes__create',
  description: 'an MCP tool',
  schema: z.record(z.string(), z.unknown()),
  readOnly: false,
  run: async () => ({ content: 'ran' }),
};
const runCommand = createRunCommandTool({ env: process.env });
const writeFile = createWriteFileTool();

/** Characters that must never reach a prompt as themselves (newlines between lines aside). */
const RAW_HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\u00a0\u2000-\u200a\u3164]/u;

interface Case {
  name: string;
  tool: Tool;
  input: Record<string, unknown>;
  /** What the shown text must contain (escaped forms, the real path or recipient). */
  shows: string[];
  /** Its first line, when that is the point. */
  first?: string;
}

const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));

const CASES: Case[] = [
  {
    name: 'argument order: content first, path second',
    tool: writeFile,
    input: { content: 'notes.txt', path: 'SOUL.md' },
    first: 'write_file path: SOUL.md',
    shows: ['content: notes.txt'],
  },
  {
    name: 'a newline hiding the rest of a path',
    tool: writeFile,
    input: { path: 'notes.txt\n/../SOUL.md', content: 'x' },
    first: 'write_file path: SOUL.md (given as notes.txt\\n/../SOUL.md)',
    shows: [],
  },
  {
    name: 'a path climbing out of the workspace',
    tool: writeFile,
    input: { path: 'notes/../../../.ssh/authorized_keys', content: 'ssh-ed25519 AAAA' },
    shows: ['/.ssh/authorized_keys (given as notes/../../../.ssh/authorized_keys)'],
  },
  {
    name: 'trailing space in a path',
    tool: writeFile,
    input: { path: 'SOUL.md ', content: 'x' },
    first: 'write_file path: "SOUL.md "',
    shows: [],
  },
  {
    name: 'escape sequences painting a harmless command over the real one',
    tool: runCommand,
    input: { command: 'rm -rf ~/x \u001b[2K\u001b[1A\rAllow run_command `ls -la`?' },
    shows: ['rm -rf ~/x \\x1b[2K\\x1b[1A\\rAllow run_command `ls -la`?'],
  },
  {
    name: 'clearing the screen',
    tool: runCommand,
    input: { command: '\u001b[2J\u001b[Hrm -rf build' },
    shows: ['command: \\x1b[2J\\x1b[Hrm -rf build', 'why: not on the safe list: \\x1b[2J'],
  },
  {
    name: 'a C1 control sequence introducer',
    tool: runCommand,
    input: { command: 'ls \u009b2J' },
    shows: ['ls \\x9b2J'],
  },
  {
    name: 'a bidi override reversing the end of a name',
    tool: runCommand,
    input: { command: 'cat notes\u202etxt.hs' },
    shows: ['cat notes\\u{202e}txt.hs'],
  },
  {
    name: 'zero-width and invisible format characters',
    tool: runCommand,
    input: { command: 'rm -rf bu\u200bild \u2060x \ufeffy \u{e0072} z\u034f\ufe0f' },
    shows: ['bu\\u{200b}ild \\u{2060}x \\u{feff}y \\u{e0072} z\\u{34f}\\u{fe0f}'],
  },
  {
    name: 'a NUL',
    tool: runCommand,
    input: { command: 'cat a\u0000b' },
    shows: ['cat a\\x00b'],
  },
  {
    name: 'a line separator and a look-alike space',
    tool: runCommand,
    input: { command: 'ls\u2028rm\u00a0-rf x' },
    shows: ['ls\\u{2028}rm\\xa0-rf x'],
  },
  {
    name: 'a very long command hiding its end',
    tool: runCommand,
    input: { command: `echo ${'a'.repeat(20_000)}; rm -rf ~` },
    shows: ['… [cut: 20,015 characters in all]'],
  },
  {
    name: 'a cwd outside the workspace',
    tool: runCommand,
    input: { command: 'rm -rf build', cwd: '../../etc' },
    shows: ['cwd: /', '(given as ../../etc)'],
  },
  {
    name: 'the recipient given after the body',
    tool: sendMessageTool,
    input: { body: 'to: nova', to: 'mallory' },
    first: 'send_message to: mallory',
    shows: ['body: to: nova'],
  },
  {
    name: 'a body faking a second recipient on a new line',
    tool: sendMessageTool,
    input: { to: 'mallory', body: 'hi\n\nto: nova' },
    first: 'send_message to: mallory',
    shows: ['body: hi\\n\\nto: nova'],
  },
  {
    name: 'HTML and Markdown meant for the chat',
    tool: runCommand,
    input: { command: 'echo <b>ok</b> & <a href="https://x">**Approve**</a> @everyone' },
    shows: ['echo <b>ok</b> & <a href="https://x">**Approve**</a> @everyone'],
  },
  {
    name: 'backticks closing a Discord code block',
    tool: runCommand,
    input: { command: 'echo ```\n**Approved** @everyone```' },
    shows: ['echo ```\\n**Approved** @everyone```'],
  },
  {
    name: 'an argument name with an escape sequence',
    tool: mcpTool,
    input: { '\u001b[31mtitle': 'x', body: 'y' },
    shows: ['\\x1b[31mtitle: x'],
  },
  {
    name: 'more arguments than fit',
    tool: mcpTool,
    input: many,
    shows: ['… [cut: 14 more arguments]'],
  },
];

let tb: TempBrain;
let workspace: string;
let turnMessageId: string;
let tg: FakeTelegram;
beforeAll(async () => {
  tb = await tempBrain();
  workspace = join(tb.dir, 'ws');
  mkdirSync(workspace, { recursive: true });
  turnMessageId = tb.brain.messages.send({ from: 'ann', to: 'assistant', body: 'do it' }).id;
  tg = await startFakeTelegram();
});
afterAll(async () => {
  await tg.close();
  tb.cleanup();
});

const policy = createPolicy({
  config: permissionsConfig.parse({}),
  judgeCommand: judge,
  rules: () => tb.brain.assistant.approvalRules(),
});

/** Ask through the real gate; the request the owner is asked with, and what was recorded. */
async function gate(tool: Tool, input: Record<string, unknown>) {
  let asked: Omit<ApprovalRequest, 'signal'> | undefined;
  const result = await gateToolCall({
    brain: tb.brain,
    policy,
    tool,
    input,
    session: 'chat/default',
    turnMessageId,
    workspace,
    timeoutMs: 60_000,
    unattended: false,
    ask: async (request) => {
      asked = request;
      return 'deny';
    },
  });
  expect(result.allowed).toBe(false);
  return { request: asked!, recorded: tb.brain.assistant.approvals({ limit: 1 })[0]! };
}

/** The terminal's prompt through a real readline, answered with `answer`. */
async function onTerminal(request: ApprovalRequest, answer = 'n') {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (d: Buffer) => (text += d.toString()));
  const rl = createInterface({ input, output, terminal: false });
  const answered = askOnTerminal(rl, request);
  input.write(`${answer}\n`);
  const result = await answered;
  rl.close();
  return { text, result };
}

let chatMessages = 0;
/** The Telegram prompt as grammY sends it to the fake Bot API. */
async function onTelegram(request: ApprovalRequest) {
  const prompts = createApprovalPrompts({
    api: () => new Api(tg.token, { apiRoot: tg.apiRoot }),
    isOwner: (id) => id === '111',
    log: () => {},
  });
  void prompts.ask('111', request);
  const calls = await tg.waitFor('sendMessage', ++chatMessages);
  return calls.at(-1)!.params as {
    text: string;
    reply_markup: { inline_keyboard: Array<Array<{ text: string }>> };
  };
}

/** The Discord prompt as posted through a recording transport. */
async function onDiscord(request: ApprovalRequest) {
  const posted: Array<Record<string, unknown>> = [];
  let wasPosted!: () => void;
  const done = new Promise<void>((r) => (wasPosted = r));
  const transport: ApprovalTransport = {
    post: async (_channel, body) => {
      posted.push(body);
      wasPosted();
      return { id: '1' };
    },
    edit: async () => {},
  };
  const discord = createDiscordApprovals({
    transport,
    isOwner: () => true,
    log: () => () => {},
  });
  void discord.ask('5', request);
  await done;
  return posted[0]!;
}

const unescapeHtml = (s: string) =>
  s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

describe('approvals show what will run', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { request, recorded } = await gate(c.tool, c.input);
    const shown = promptText(request);
    if (c.first) expect(request.display.split('\n')[0]).toBe(c.first);
    for (const part of c.shows) expect(request.display + '\n' + shown).toContain(part);
    // What is recorded is what was shown.
    expect(recorded.summary).toBe(request.display);
    expect(request.summary).toBe(request.display.split('\n')[0]);

    const controller = new AbortController();
    const live: ApprovalRequest = { ...request, signal: controller.signal };
    const terminal = await onTerminal(live);
    const telegram = await onTelegram(live);
    const discord = await onDiscord(live);
    controller.abort();

    // The same text everywhere, with no raw hidden character.
    for (const line of shown.split('\n')) expect(terminal.text).toContain(`  ${line}\n`);
    const pre = /<pre>([\s\S]*)<\/pre>/.exec(telegram.text)![1]!;
    expect(unescapeHtml(pre)).toBe(shown);
    expect(pre).not.toMatch(/<(?!\/?pre>)/);
    const content = String(discord.content);
    const fenced = /```\n([\s\S]*)\n```$/.exec(content)![1]!;
    expect(fenced.replaceAll('`\u200b', '`')).toBe(shown);
    expect(content.match(/```/g)).toHaveLength(2);
    for (const text of [terminal.text, telegram.text, content.replaceAll('`\u200b', '`')])
      expect(text.replaceAll('\n', '')).not.toMatch(RAW_HIDDEN);
    t.refused();
  });

  it('offers "always" with the rule as it will match, and no "always" where none can be stored', async () => {
    const always = await gate(runCommand, { command: 'git log --oneline -5' });
    expect(always.request.alwaysText).toBe('run_command: git log --oneline -5 (exactly)');
    const once = await gate(runCommand, { command: 'git push --force origin main' });
    expect(once.request.alwaysPattern).toBeUndefined();
    const mcp = await gate(mcpTool, { title: 'x' });
    expect(mcp.request.alwaysText).toBe('mcp__notes__create: any input (every call of this tool)');

    const controller = new AbortController();
    const offered = { ...always.request, signal: controller.signal };
    const refused = { ...once.request, signal: controller.signal };
    expect((await onTerminal(offered)).text).toContain(
      'always allows: run_command: git log --oneline -5 (exactly)',
    );
    const terminalOnce = await onTerminal(refused, 'a');
    expect(terminalOnce.text).toContain('always: not offered');
    expect(terminalOnce.text).not.toContain('[a]lways');
    // "a" where always was not offered is no approval.
    expect(terminalOnce.result).toBe('deny');
    expect((await onTerminal(offered, 'a')).result).toBe('always');

    const buttons = (p: Awaited<ReturnType<typeof onTelegram>>) =>
      p.reply_markup.inline_keyboard[0]!.map((b) => b.text);
    expect(buttons(await onTelegram(offered))).toEqual(['Approve', 'Always', 'Deny']);
    expect(buttons(await onTelegram(refused))).toEqual(['Approve', 'Deny']);
    expect(approvalText(offered)).toContain('always allows: run_command: git log --oneline -5');
    expect(approvalText(refused)).toContain('always: not offered');
    controller.abort();
    t.refused();
  });

  it('fits the longest call, reason and rule in one Discord message, cutting only the call', async () => {
    const mcpMany = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`argument_${i}`, 'v'.repeat(5000)]),
    );
    const display = describeCall(mcpTool, mcpMany, { workspace });
    const request: ApprovalRequest = {
      tool: mcpTool.name,
      input: mcpMany,
      display,
      summary: display.split('\n')[0]!,
      reason: `r${'\u001b'.repeat(5000)}`,
      alwaysPattern: 'x',
      alwaysText: `${mcpTool.name}: ${'m'.repeat(400 - mcpTool.name.length - 2)}`,
      signal: new AbortController().signal,
    };
    const text = approvalText(request);
    expect(text.length).toBeLessThanOrEqual(1900);
    expect(text.endsWith(`always allows: ${request.alwaysText}\n\`\`\``)).toBe(true);
    expect(text).toContain('why: r\\x1b');
    expect(text).toMatch(/characters in all\]/);
    t.refused();
  });

  it('records a 20,000-character command without throwing, as it was shown', async () => {
    const command = `echo ${'x'.repeat(20_000)}`;
    const { request, recorded } = await gate(runCommand, { command });
    expect(recorded.summary).toBe(request.display);
    expect(recorded.summary).toMatch(/… \[cut: 20,005 characters in all\]$/);
    expect(recorded.decision).toBe('denied');
    // Settled at once too: an unattended run records the same text.
    await gateToolCall({
      brain: tb.brain,
      policy,
      tool: runCommand,
      input: { command },
      session: 'chat/default',
      turnMessageId,
      workspace,
      timeoutMs: 1000,
      unattended: true,
    });
    const [unattended] = tb.brain.assistant.approvals({ limit: 1 });
    expect(unattended).toMatchObject({ decided_by: 'unattended', summary: request.display });
    t.refused();
  });
});
