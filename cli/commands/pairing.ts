import type { Command } from 'commander';
import type { PairingRecord } from '../../src/index.js';
import { dim, printJson, println, shortTime } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

/**
 * `brain pairing list | approve CODE | deny CODE`: the owner's answer to people who asked a
 * channel (Telegram) to talk with the assistant. An approved sender is served from then on.
 */
export function registerPairing(program: Command, globals: () => GlobalOptions): void {
  const pairing = program
    .command('pairing')
    .description("who asked to talk with the assistant on a channel, and the owner's answer");
  pairing
    .command('list', { isDefault: true })
    .description('pending requests (valid for an hour) and approved senders, newest first')
    .action(() =>
      withBrain(globals(), ({ brain, json }) => {
        const all = brain.assistant.pairings();
        if (json) return printJson({ pairings: all });
        if (all.length === 0) return println('no pairing requests and no paired senders');
        for (const p of all) println(formatPairing(p));
      }),
    );
  for (const decision of ['approve', 'deny'] as const) {
    pairing
      .command(`${decision} <code>`)
      .description(
        decision === 'approve'
          ? 'let the sender of this code talk with the assistant'
          : 'refuse the sender of this code (they get no answer from then on)',
      )
      .action((code: string) =>
        withBrain(globals(), ({ brain, json }) => {
          const decided = brain.assistant.decidePairing({ code, decision });
          if (json) return printJson({ pairing: decided });
          println(
            `${decision === 'approve' ? 'approved' : 'denied'} ${decided.channel} user ${decided.user_id}${decided.name ? ` (${decided.name})` : ''}`,
          );
        }),
      );
  }
}

function formatPairing(p: PairingRecord): string {
  const who = `${p.channel} user ${p.user_id}${p.name ? ` (${p.name})` : ''}`;
  return p.status === 'pending'
    ? `${p.code}  pending  ${who}  ${dim(`until ${shortTime(p.expires_at)}`)}`
    : `${' '.repeat(8)}  approved ${who}  ${dim(shortTime(p.decided_at ?? p.created_at))}`;
}
