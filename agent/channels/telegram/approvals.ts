import { randomBytes } from 'node:crypto';
import type { Api, Context } from 'grammy';
import type { Log } from '../../log.js';
import {
  closedAskNote,
  type ApprovalAnswer,
  type ApprovalRequest,
} from '../../permissions/approvals.js';
import { promptText } from '../../permissions/describe.js';
import { escapeHtml } from './render.js';

/**
 * The question as HTML: the text every channel shows (agent/permissions/describe.ts), escaped,
 * in a <pre> block, so nothing in the call can format, link or hide anything.
 */
export function approvalHtml(request: ApprovalRequest): string {
  return `<b>Allow this call?</b>\n<pre>${escapeHtml(promptText(request))}</pre>`;
}

/**
 * Approvals as an inline keyboard (Approve / Always / Deny) under a message naming the call;
 * Always only when the call can be allowed always.
 * Callback data is `ap:<id>:<y|a|n>` (13 bytes, well under Telegram's 64). Only the owner's
 * presses count; anyone else's is answered with a notice and changes nothing. When the ask ends
 * unanswered (timeout, cancelled turn) the buttons are removed, the message says it was denied
 * with no answer within how many seconds, and the answer is deny — the
 * gate (agent/permissions/approvals.ts) decides the timeout and aborts the request's signal.
 */

const ANSWERS: Record<string, { answer: ApprovalAnswer; label: string }> = {
  y: { answer: 'approve', label: 'Approved' },
  a: { answer: 'always', label: 'Always allowed' },
  n: { answer: 'deny', label: 'Denied' },
};

interface Waiting {
  chatId: string;
  messageId: number;
  html: string;
  /** Whether Always was offered: a press of it is taken only then. */
  always: boolean;
  resolve(answer: ApprovalAnswer): void;
}

export interface ApprovalPrompts {
  ask(chatId: string, request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** A callback query: handled when it is one of ours (true), else left alone. */
  onPress(ctx: Context): Promise<boolean>;
  /** Asks still waiting (for /status and tests). */
  waiting(): number;
}

export function createApprovalPrompts(options: {
  api: () => Api;
  isOwner: (userId: string) => boolean;
  log: Log;
  /** For how long an ask waited before it was closed; default the system clock. */
  now?: () => number;
}): ApprovalPrompts {
  const { log } = options;
  const now = options.now ?? (() => Date.now());
  const pending = new Map<string, Waiting>();

  return {
    waiting: () => pending.size,

    async ask(chatId, request) {
      const id = randomBytes(6).toString('base64url');
      const html = approvalHtml(request);
      const sent = await options.api().sendMessage(chatId, html, {
        parse_mode: 'HTML',
        reply_markup: {
          inline_keyboard: [
            [
              { text: 'Approve', callback_data: `ap:${id}:y` },
              ...(request.alwaysPattern ? [{ text: 'Always', callback_data: `ap:${id}:a` }] : []),
              { text: 'Deny', callback_data: `ap:${id}:n` },
            ],
          ],
        },
      });
      log('info', 'telegram.approval_asked', { chat: chatId, tool: request.tool });
      const askedAt = now();
      return new Promise<ApprovalAnswer>((resolve) => {
        const entry: Waiting = {
          chatId,
          messageId: sent.message_id,
          html,
          always: request.alwaysPattern !== undefined,
          resolve,
        };
        const onAbort = () => {
          if (pending.get(id) !== entry) return;
          pending.delete(id);
          resolve('deny');
          log('info', 'telegram.approval_expired', { chat: chatId, tool: request.tool });
          // The gate closes an ask it no longer waits on (no answer in time, a stopped turn, an
          // answer given elsewhere): the chat where it was asked says which.
          const note = closedAskNote(request.signal.reason, Math.round((now() - askedAt) / 1000));
          options
            .api()
            .editMessageText(chatId, entry.messageId, `${html}\n\n<i>${escapeHtml(note)}</i>`, {
              parse_mode: 'HTML',
              reply_markup: { inline_keyboard: [] },
            })
            .catch((err: unknown) =>
              log('warn', 'telegram.approval_cleanup_failed', { error: (err as Error).message }),
            );
        };
        pending.set(id, entry);
        if (request.signal.aborted) onAbort();
        else request.signal.addEventListener('abort', onAbort, { once: true });
      });
    },

    async onPress(ctx) {
      const data = ctx.callbackQuery?.data;
      const m = data ? /^ap:([A-Za-z0-9_-]{1,16}):([yan])$/.exec(data) : null;
      if (!m || !ctx.from) return false;
      const [, id, key] = m as unknown as [string, string, string];
      if (!options.isOwner(String(ctx.from.id))) {
        log('warn', 'telegram.approval_not_owner', { user: ctx.from.id });
        await ctx.answerCallbackQuery({ text: 'Only the owner can answer this.' });
        return true;
      }
      const entry = pending.get(id);
      if (!entry) {
        await ctx.answerCallbackQuery({ text: 'This question is no longer open.' });
        return true;
      }
      if (key === 'a' && !entry.always) {
        await ctx.answerCallbackQuery({ text: 'Always is not offered for this call.' });
        return true;
      }
      pending.delete(id);
      const { answer, label } = ANSWERS[key]!;
      entry.resolve(answer);
      log('info', 'telegram.approval_answered', { chat: entry.chatId, answer });
      await ctx.answerCallbackQuery({ text: label });
      // The question stays readable with its answer; the buttons go with the edit.
      await options
        .api()
        .editMessageText(entry.chatId, entry.messageId, `${entry.html}\n\n<i>${label}</i>`, {
          parse_mode: 'HTML',
          reply_markup: { inline_keyboard: [] },
        });
      return true;
    },
  };
}
