import type { Brain } from '../../../src/index.js';
import type { Log } from '../../log.js';

/**
 * What an unknown private sender gets: a pairing code for the owner to approve
 * (`brain pairing approve CODE`), and nothing else. The same code is given again while it is
 * valid; a sender the owner denied gets no answer; when three requests are already waiting the
 * sender is told to try later.
 */
export function pairingReply(
  brain: Brain,
  sender: { userId: string; name: string },
  log: Log,
): string | undefined {
  const result = brain.assistant.requestPairing({
    channel: 'telegram',
    user_id: sender.userId,
    name: sender.name.slice(0, 200),
  });
  switch (result.status) {
    case 'pending':
      if (result.created) log('info', 'telegram.pairing_requested', { user: sender.userId });
      return [
        'I only talk with people my owner has approved.',
        `To ask, give them this code: ${result.code}`,
        `(valid for one hour; they run: brain pairing approve ${result.code})`,
      ].join('\n');
    case 'full':
      log('warn', 'telegram.pairing_full', { user: sender.userId });
      return 'Too many pairing requests are waiting. Try again later.';
    case 'denied':
      log('debug', 'telegram.pairing_denied_sender', { user: sender.userId });
      return undefined;
    case 'approved':
      return undefined;
  }
}
