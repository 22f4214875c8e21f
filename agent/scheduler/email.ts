import { Cron } from 'croner';
import type { AssistantConfig } from '../config.js';
import type { ServiceComponent, ServiceHost } from '../contracts.js';
import { untrusted } from '../untrusted.js';
import { parseTarget, type EmailJobConfig } from './config.js';
import { mailText } from './mail-text.js';
import { createInflight, errorText, scheduledTurn } from './turn.js';
import { emailSession } from '../conversation/sessions.js';

/** What the model answers when no new mail matters. */
export const NOTHING_NEW = 'NOTHING_NEW';

export interface EmailCheck {
  status: 'baseline' | 'none' | 'summarised' | 'nothing-matters' | 'failed';
  /** Messages read this time. */
  messages: number;
  delivered: boolean;
  lastUid?: number;
  error?: string;
}

export interface EmailComponent extends ServiceComponent {
  /** Check one watcher now (also what its schedule runs). */
  checkNow(name: string): Promise<EmailCheck>;
}

interface Seen {
  uidValidity: string;
  lastUid: number;
}

const stateKey = (name: string) => `email:${name}`;

/**
 * IMAP watchers (imapflow). On its schedule each one reads what arrived since the last UID it
 * saw (kept in the brain; the first check only notes where the mailbox stands), has the model
 * summarise what matters under the job's instructions, with the mail given as untrusted data,
 * and delivers the summary. The UID moves on once the summary turn has ended.
 */
export function createEmailWatcher(): EmailComponent {
  let host: ServiceHost | undefined;
  const scheduled = new Map<string, { cron: Cron; key: string }>();
  const inflight = createInflight();

  function need(): ServiceHost {
    if (!host) throw new Error('email: not started');
    return host;
  }

  async function check(job: EmailJobConfig): Promise<EmailCheck> {
    const h = need();
    const password = h.config().scheduler.emailPasswords[job.name];
    if (password === undefined) {
      h.log('warn', 'email.no_password', { job: job.name, env: job.passwordEnv });
      return {
        status: 'failed',
        messages: 0,
        delivered: false,
        error: `${job.passwordEnv} is not set`,
      };
    }
    const seen = h.brain.assistant.schedulerState(stateKey(job.name)) as Seen | undefined;
    // Loaded on the first check, not with `brain agent`: most services watch no mailbox.
    const { ImapFlow } = await import('imapflow');
    const client = new ImapFlow({
      host: job.host,
      port: job.port,
      secure: job.tls,
      auth: { user: job.user, pass: password },
      logger: false,
    });
    // A dropped connection is reported by the awaited call that needed it; this only keeps
    // the emitter from throwing.
    client.on('error', (err: Error) =>
      h.log('debug', 'email.connection_error', { job: job.name, error: err.message }),
    );
    const mails: Array<{ uid: number; from: string; subject: string; date: string; text: string }> =
      [];
    let uidValidity: string;
    let lastUid: number;
    try {
      await client.connect();
      const lock = await client.getMailboxLock(job.folder);
      try {
        const box = client.mailbox;
        if (!box) throw new Error(`cannot open ${job.folder}`);
        uidValidity = String(box.uidValidity);
        const top = box.uidNext - 1;
        if (!seen || seen.uidValidity !== uidValidity) {
          // First look (or the folder was rebuilt): start from here, summarise nothing old.
          h.brain.assistant.setSchedulerState(stateKey(job.name), { uidValidity, lastUid: top });
          h.log('info', 'email.baseline', { job: job.name, lastUid: top });
          return { status: 'baseline', messages: 0, delivered: false, lastUid: top };
        }
        lastUid = seen.lastUid;
        if (top > lastUid) {
          for await (const msg of client.fetch(
            `${lastUid + 1}:*`,
            { uid: true, envelope: true, source: true },
            { uid: true },
          )) {
            // `n:*` names the newest message even when its UID is below n.
            if (msg.uid <= lastUid) continue;
            if (mails.length >= job.maxMessages) break;
            const from =
              msg.envelope?.from
                ?.map((a) => (a.name ? `${a.name} <${a.address}>` : a.address))
                .join(', ') ?? '';
            mails.push({
              uid: msg.uid,
              from,
              subject: msg.envelope?.subject ?? '',
              date: msg.envelope?.date ? new Date(msg.envelope.date).toISOString() : '',
              text: msg.source ? mailText(msg.source) : '',
            });
          }
        }
      } finally {
        lock.release();
      }
      await client.logout();
    } catch (err) {
      client.close();
      h.log('warn', 'email.failed', { job: job.name, error: errorText(err) });
      return { status: 'failed', messages: 0, delivered: false, error: errorText(err) };
    }
    if (mails.length === 0) return { status: 'none', messages: 0, delivered: false, lastUid };

    h.log('info', 'email.new', { job: job.name, messages: mails.length });
    const newest = Math.max(...mails.map((m) => m.uid));
    const block = mails
      .map((m) => `From: ${m.from}\nDate: ${m.date}\nSubject: ${m.subject}\n\n${m.text}`)
      .join('\n\n-----\n\n');
    const text = [
      `${mails.length} new email message(s) arrived in ${job.name} (${job.folder}).`,
      job.instructions
        ? `The owner's instructions for this mailbox: ${job.instructions}`
        : 'Tell the owner briefly about what needs their attention or action; leave out newsletters, notifications and advertising.',
      `If none of it matters, reply with ${NOTHING_NEW} and nothing else.`,
      '',
      untrusted(`email:${job.name}`, block),
    ].join('\n');
    const result = await inflight.turn(
      // Other people's mail is the text: the turn is not the owner's to drive.
      scheduledTurn(h, {
        session: emailSession(job.name),
        text,
        source: 'email',
        foreignText: true,
      }),
    ).done;
    const reply = result.reply.trim();
    if (result.cancelled)
      return { status: 'failed', messages: mails.length, delivered: false, error: 'cancelled' };
    h.brain.assistant.setSchedulerState(stateKey(job.name), { uidValidity, lastUid: newest });
    if (reply === '' || reply.replace(/[*`.]/g, '').trim() === NOTHING_NEW)
      return {
        status: 'nothing-matters',
        messages: mails.length,
        delivered: false,
        lastUid: newest,
      };
    const delivered = await h.deliver(reply, parseTarget(job.deliverTo));
    return { status: 'summarised', messages: mails.length, delivered, lastUid: newest };
  }

  function apply(config: AssistantConfig): void {
    const h = need();
    const wanted = new Map(config.scheduler.email.map((j) => [j.name, j]));
    for (const [name, entry] of scheduled) {
      const next = wanted.get(name);
      if (!next || JSON.stringify(next) !== entry.key) {
        entry.cron.stop();
        scheduled.delete(name);
      }
    }
    for (const [name, job] of wanted) {
      if (scheduled.has(name)) continue;
      const cron = new Cron(
        job.schedule,
        {
          timezone: job.timezone ?? config.timeZone,
          protect: () => h.log('warn', 'email.overlap', { job: name }),
        },
        async () => {
          // The job as configured now: a reload may have changed it since it was scheduled.
          const current = h.config().scheduler.email.find((j) => j.name === name);
          if (current) await inflight.track(check(current));
        },
      );
      scheduled.set(name, { cron, key: JSON.stringify(job) });
    }
  }

  return {
    name: 'email',
    async start(h) {
      host = h;
      apply(h.config());
    },
    async stop() {
      for (const { cron } of scheduled.values()) cron.stop();
      scheduled.clear();
      await inflight.settle('the service is stopping');
    },
    reconfigure(config) {
      if (host) apply(config);
    },
    async check(h) {
      return h.config().scheduler.email.map((job) => {
        const has = h.config().scheduler.emailPasswords[job.name] !== undefined;
        return {
          name: `email ${job.name}`,
          ok: has,
          detail: has
            ? `${job.user}@${job.host}:${job.port} ${job.folder}`
            : `${job.passwordEnv} is not set`,
        };
      });
    },
    async checkNow(name) {
      const job = need()
        .config()
        .scheduler.email.find((j) => j.name === name);
      if (!job) throw new Error(`no email watcher named ${name}`);
      return inflight.track(check(job));
    },
  };
}
