import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceComponent, ServiceHost } from '../contracts.js';
import { parseTarget } from './config.js';
import { formatTask } from './tools.js';
import { createInflight, errorText, scheduledTurn } from './turn.js';
import { zonedParts } from '../../src/index.js';
import { withinHours } from './when.js';
import { HEARTBEAT_SESSION } from '../conversation/sessions.js';

/** The checklist file in the workspace. */
export const HEARTBEAT_FILE = 'HEARTBEAT.md';
/** What the model answers when nothing needs the owner. */
export const HEARTBEAT_OK = 'HEARTBEAT_OK';
/** A reply this long or longer is a finding even if it mentions the token at an end. */
const SHORT_REPLY = 300;
const DAY_MS = 86_400_000;
const LAST_KEY = 'heartbeat:last';

export interface HeartbeatOutcome {
  status: 'delivered' | 'suppressed' | 'skipped';
  reason: string;
  reply?: string;
}

export interface HeartbeatComponent extends ServiceComponent {
  /** One tick now; `force` ignores active hours and a missing or empty checklist. */
  tick(options?: { force?: boolean }): Promise<HeartbeatOutcome>;
}

/** Whether a checklist has anything but headings and blank lines. */
export function hasChecklist(text: string): boolean {
  return text.split('\n').some((line) => {
    const l = line.trim();
    return l !== '' && !/^#{1,6}(\s|$)/.test(l) && !/^(-{3,}|={3,})$/.test(l);
  });
}

/** `HEARTBEAT_OK` alone, or at the start or end of a short reply (markup and punctuation aside). */
export function isHeartbeatOk(reply: string): boolean {
  const plain = reply.trim().replace(/[*`~]/g, '').trim();
  if (plain === HEARTBEAT_OK) return true;
  if (plain.length >= SHORT_REPLY) return false;
  const edge = /^HEARTBEAT_OK\b|\bHEARTBEAT_OK[.!]?$/;
  return edge.test(plain);
}

const digest = (text: string) =>
  createHash('sha256').update(text.trim().replace(/\s+/g, ' ')).digest('hex');

/**
 * Every `everyMinutes` inside active hours: the workspace's HEARTBEAT.md, the time and the
 * pending and overdue tasks go to a turn of the `heartbeat` session. A reply saying HEARTBEAT_OK,
 * or the same as the last delivered within 24 h, is not delivered; anything else goes to the owner.
 */
export function createHeartbeat(): HeartbeatComponent {
  let host: ServiceHost | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let everyMinutes: number | undefined;
  let ticking = false;
  const inflight = createInflight();

  function arm(h: ServiceHost): void {
    const cfg = h.config().scheduler.heartbeat;
    const wanted = cfg?.enabled ? cfg.everyMinutes : undefined;
    if (wanted === everyMinutes) return;
    if (timer) clearInterval(timer);
    timer = undefined;
    everyMinutes = wanted;
    if (wanted === undefined) return;
    timer = setInterval(() => {
      if (ticking) return h.log('debug', 'heartbeat.overlap');
      void inflight
        .track(tick({}))
        .catch((err) => h.log('warn', 'heartbeat.failed', { error: errorText(err) }));
    }, wanted * 60_000);
  }

  async function tick(options: { force?: boolean } = {}): Promise<HeartbeatOutcome> {
    if (!host) throw new Error('heartbeat: not started');
    const h = host;
    const outcome = await inner(h, options.force ?? false);
    h.log('info', `heartbeat.${outcome.status}`, { reason: outcome.reason });
    return outcome;
  }

  async function inner(h: ServiceHost, force: boolean): Promise<HeartbeatOutcome> {
    const config = h.config();
    const cfg = config.scheduler.heartbeat;
    const zone = cfg?.timezone ?? config.timeZone;
    const now = h.clock();
    if (!force && cfg?.activeHours && !withinHours(now, cfg.activeHours, zone))
      return {
        status: 'skipped',
        reason: `outside active hours ${cfg.activeHours.start}-${cfg.activeHours.end}`,
      };
    let checklist: string | undefined;
    try {
      checklist = await readFile(join(config.workspace, HEARTBEAT_FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (!force && checklist === undefined)
      return { status: 'skipped', reason: `no ${HEARTBEAT_FILE}` };
    if (!force && !hasChecklist(checklist ?? ''))
      return { status: 'skipped', reason: `${HEARTBEAT_FILE} has only headings` };
    if (h.busy(h.ownerSession()))
      return { status: 'skipped', reason: 'the owner has a turn running' };

    ticking = true;
    try {
      const turn = inflight.turn(
        scheduledTurn(h, {
          session: HEARTBEAT_SESSION,
          text: prompt(h, checklist, zone, now),
          source: 'heartbeat',
        }),
      );
      const result = await turn.done;
      const reply = result.reply.trim();
      if (result.cancelled) return { status: 'suppressed', reason: 'the turn was cancelled' };
      if (reply === '') return { status: 'suppressed', reason: 'empty reply' };
      if (isHeartbeatOk(reply)) return { status: 'suppressed', reason: 'HEARTBEAT_OK', reply };
      const last = h.brain.assistant.schedulerState(LAST_KEY) as
        { digest: string; at: string } | undefined;
      const d = digest(reply);
      if (last && last.digest === d && now.getTime() - Date.parse(last.at) < DAY_MS)
        return { status: 'suppressed', reason: 'same as the last delivered, within 24 h', reply };
      const delivered = await h.deliver(reply, parseTarget(cfg?.deliverTo));
      if (!delivered) return { status: 'suppressed', reason: 'no channel took it', reply };
      h.brain.assistant.setSchedulerState(LAST_KEY, { digest: d, at: now.toISOString() });
      return { status: 'delivered', reason: 'a finding', reply };
    } finally {
      ticking = false;
    }
  }

  return {
    name: 'heartbeat',
    async start(h) {
      host = h;
      arm(h);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      everyMinutes = undefined;
      await inflight.settle('the service is stopping');
    },
    reconfigure() {
      if (host) arm(host);
    },
    async check(h) {
      const cfg = h.config().scheduler.heartbeat;
      if (!cfg?.enabled) return [{ name: 'heartbeat', ok: true, detail: 'off' }];
      let found = true;
      try {
        await readFile(join(h.config().workspace, HEARTBEAT_FILE), 'utf8');
      } catch {
        // Missing or unreadable: reported, not thrown; ticks skip until it is there.
        found = false;
      }
      return [
        {
          name: 'heartbeat',
          ok: found,
          detail: found
            ? `every ${cfg.everyMinutes} min`
            : `every ${cfg.everyMinutes} min, but no ${HEARTBEAT_FILE} in the workspace (ticks skip)`,
        },
      ];
    },
    tick,
  };
}

function prompt(
  h: ServiceHost,
  checklist: string | undefined,
  zone: string | undefined,
  now: Date,
): string {
  const p = zonedParts(now, zone);
  const local = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')} ${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
  const tasks = h.brain.assistant.tasks({ status: 'pending', limit: 50 });
  const taskLines = tasks.length
    ? tasks.map((t) => `- ${formatTask(t, zone, now)}`).join('\n')
    : '(none)';
  return [
    `Heartbeat check at ${local}${zone ? ` (${zone})` : ''}.`,
    `Go through the checklist. If nothing needs the owner's attention now, reply with ${HEARTBEAT_OK} and nothing else. Otherwise reply with only what the owner should know.`,
    '',
    'Checklist:',
    checklist?.trim() || '(none)',
    '',
    'Pending tasks (OVERDUE marks the late ones):',
    taskLines,
  ].join('\n');
}
