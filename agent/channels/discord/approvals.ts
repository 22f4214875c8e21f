import { randomBytes } from 'node:crypto';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  type ButtonInteraction,
} from 'discord.js';
import { cutVisibly } from '../../../src/index.js';
import {
  closedAskNote,
  type ApprovalAnswer,
  type ApprovalRequest,
} from '../../permissions/approvals.js';
import { promptText } from '../../permissions/describe.js';
import type { Log } from '../../log.js';

/** Button ids: `brain-approval:<nonce>:<answer>`, well under Discord's 100-character limit. */
const PREFIX = 'brain-approval';
const ANSWERS: readonly ApprovalAnswer[] = ['approve', 'always', 'deny'];
const SAID: Record<ApprovalAnswer, string> = {
  approve: 'approved',
  always: 'approved, always',
  deny: 'denied',
};

/** What approvals need of Discord: post a message with buttons, and edit it. */
export interface ApprovalTransport {
  post(channelId: string, body: Record<string, unknown>): Promise<{ id: string }>;
  edit(channelId: string, messageId: string, body: Record<string, unknown>): Promise<void>;
}

interface Pending {
  channelId: string;
  messageId: string | undefined;
  text: string;
  settle(answer: ApprovalAnswer): void;
}

/** The most characters of the question, within one Discord message's 2,000 with the answer. */
const TEXT_MAX = 1900;
const FENCE = '```';

/**
 * The question shown: the text every channel shows (agent/permissions/describe.ts) in a code
 * block, where nothing is formatted, linked or mentioned. Each backtick is followed by a
 * zero-width space, so no run of three can close the block early. Cut visibly to fit.
 */
export function approvalText(request: ApprovalRequest): string {
  const head = `**Approval needed**\n${FENCE}\n`;
  const tail = `\n${FENCE}`;
  const body = promptText(request).replaceAll('`', '`\u200b');
  return head + cutVisibly(body, TEXT_MAX - head.length - tail.length) + tail;
}

/**
 * Approvals as buttons: Approve / Always / Deny under a message in the chat the turn came from.
 * Only the owner's press counts; a press is acknowledged at once (Discord wants an answer within
 * 3 s) by updating the message without its buttons, then the waiting turn goes on. When the ask
 * is no longer wanted (timeout, cancelled turn) the buttons are removed and the answer is deny.
 */
export function createDiscordApprovals(options: {
  transport: ApprovalTransport;
  isOwner: (userId: string) => boolean;
  log: () => Log;
  /** For how long an ask waited before it was closed; default the system clock. */
  now?: () => number;
}) {
  const pending = new Map<string, Pending>();
  const now = options.now ?? (() => Date.now());

  async function ask(channelId: string, request: ApprovalRequest): Promise<ApprovalAnswer> {
    const nonce = randomBytes(9).toString('base64url');
    const text = approvalText(request);
    const buttons = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder()
        .setCustomId(`${PREFIX}:${nonce}:approve`)
        .setLabel('Approve')
        .setStyle(ButtonStyle.Success),
      ...(request.alwaysPattern
        ? [
            new ButtonBuilder()
              .setCustomId(`${PREFIX}:${nonce}:always`)
              .setLabel('Always')
              .setStyle(ButtonStyle.Primary),
          ]
        : []),
      new ButtonBuilder()
        .setCustomId(`${PREFIX}:${nonce}:deny`)
        .setLabel('Deny')
        .setStyle(ButtonStyle.Danger),
    );
    const askedAt = now();
    return new Promise<ApprovalAnswer>((resolve) => {
      const entry: Pending = {
        channelId,
        messageId: undefined,
        text,
        settle: (answer) => {
          if (!pending.delete(nonce)) return;
          request.signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      const onAbort = () => {
        if (!pending.has(nonce)) return;
        entry.settle('deny');
        options.log()('info', 'discord.approval_expired', { tool: request.tool });
        if (entry.messageId)
          void options.transport
            .edit(channelId, entry.messageId, {
              content: `${text}\n→ ${closedAskNote(request.signal.reason, Math.round((now() - askedAt) / 1000))}`,
              components: [],
            })
            .catch((err: unknown) => warn('edit', err));
      };
      pending.set(nonce, entry);
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener('abort', onAbort, { once: true });
      options.transport
        .post(channelId, {
          content: text,
          components: [buttons.toJSON()],
          allowed_mentions: { parse: [] },
        })
        .then((sent) => {
          entry.messageId = sent.id;
          // Expired while the message was on its way: take the buttons off now.
          if (!pending.has(nonce)) onAbortAfterSend(entry, sent.id);
        })
        .catch((err: unknown) => {
          // Nobody can be asked: the answer is no.
          warn('post', err);
          entry.settle('deny');
        });
    });
  }

  function onAbortAfterSend(entry: Pending, messageId: string) {
    void options.transport
      .edit(entry.channelId, messageId, { content: `${entry.text}\n→ denied`, components: [] })
      .catch((err: unknown) => warn('edit', err));
  }

  function warn(what: string, err: unknown) {
    options.log()('warn', 'discord.approval_failed', { what, error: (err as Error).message });
  }

  /** A button press: true when it was one of ours (answered either way). */
  async function handle(interaction: ButtonInteraction): Promise<boolean> {
    const [prefix, nonce, answer] = interaction.customId.split(':');
    if (prefix !== PREFIX || !nonce || !ANSWERS.includes(answer as ApprovalAnswer)) return false;
    const entry = pending.get(nonce);
    if (!options.isOwner(interaction.user.id)) {
      options.log()('info', 'discord.approval_refused', { user_id: interaction.user.id });
      await interaction.reply({
        content: 'Only the owner can answer this.',
        flags: MessageFlags.Ephemeral,
      });
      return true;
    }
    if (!entry) {
      await interaction.update({ components: [] });
      return true;
    }
    const said = SAID[answer as ApprovalAnswer];
    // Acknowledge first (the 3 s rule), then let the turn go on.
    const ack = interaction.update({ content: `${entry.text}\n→ ${said}`, components: [] });
    entry.settle(answer as ApprovalAnswer);
    options.log()('info', 'discord.approval_answered', { answer });
    await ack;
    return true;
  }

  return { ask, handle, pendingCount: () => pending.size };
}

export type DiscordApprovals = ReturnType<typeof createDiscordApprovals>;
