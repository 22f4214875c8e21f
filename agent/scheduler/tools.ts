import { Cron } from 'croner';
import { z } from 'zod';
import { BrainError, type ReminderRecord, type TaskRecord } from '../../src/index.js';
import type { Tool, ToolContext } from '../tools/types.js';
import { untrusted } from '../untrusted.js';
import { cronExpression } from './config.js';
import { parseWhen } from './when.js';

/**
 * The model's tools for reminders and tasks. Times the model gives are read in the owner's zone;
 * what is stored points back to the turn's message (provenance).
 */
export interface SchedulerToolOptions {
  /** The owner's time zone (config `timeZone`; undefined: the system's). */
  timeZone: () => string | undefined;
  /** A reminder was added or cancelled: the reminders component looks again at what is due. */
  changed?: () => void;
}

const when = z.string().trim().min(1, 'must not be empty').max(100);

const setInput = z.strictObject({
  when: when.describe('ISO time, "+2h", "in 20 minutes", or "tomorrow 9:00" (owner time zone)'),
  text: z.string().trim().min(1, 'must not be empty').max(2000),
  mode: z
    .enum(['notify', 'prompt'])
    .default('notify')
    .describe('notify: send the text; prompt: run a turn with it as the request'),
  repeat: cronExpression.optional().describe('cron expression to repeat on, e.g. "0 9 * * 1"'),
});

const idInput = z.strictObject({ id: z.number().int().positive() });

const addTaskInput = z.strictObject({
  title: z.string().trim().min(1, 'must not be empty').max(500),
  priority: z.enum(['low', 'normal', 'high']).optional(),
  due: when.optional().describe('as set_reminder\'s "when"'),
});

const listTasksInput = z.strictObject({
  status: z.enum(['pending', 'done', 'all']).default('pending'),
});

function zoned(iso: string, timeZone: string | undefined): string {
  return new Date(iso).toLocaleString('sv-SE', { timeZone, timeZoneName: 'short' });
}

export function formatReminder(r: ReminderRecord, timeZone: string | undefined): string {
  const repeat = r.repeat ? ` (repeats ${r.repeat})` : '';
  return `#${r.id} ${zoned(r.due_at, timeZone)} [${r.mode}]${repeat} ${r.text}`;
}

export function formatTask(t: TaskRecord, timeZone: string | undefined, now?: Date): string {
  const due = t.due_at ? ` due ${zoned(t.due_at, timeZone)}` : '';
  const overdue =
    now && t.status === 'pending' && t.due_at && Date.parse(t.due_at) < now.getTime()
      ? ' OVERDUE'
      : '';
  const done = t.status === 'done' ? ' (done)' : '';
  const title = t.tainted_by ? untrusted(`task:${t.tainted_by}`, t.title) : t.title;
  return `#${t.id} [${t.priority}]${due}${overdue}${done} ${title}`;
}

export function schedulerTools(options: SchedulerToolOptions): Tool[] {
  const setReminder: Tool<z.output<typeof setInput>> = {
    name: 'set_reminder',
    description:
      'Remind the owner at a time: notify sends the text, prompt runs a turn with it then (e.g. "check the weather and tell me"). Optional cron repeat.',
    schema: setInput,
    readOnly: false,
    run: async (args, ctx) => {
      const tz = options.timeZone();
      const now = ctx.clock();
      let at: Date;
      if (args.repeat && /^(next|repeat)$/i.test(args.when)) {
        const next = new Cron(args.repeat, { timezone: tz, paused: true }).nextRun(now);
        if (!next) return { content: 'repeat: has no future time', isError: true };
        at = next;
      } else {
        const parsed = parseWhen(args.when, now, tz);
        if (!parsed.ok) return { content: `when: ${parsed.error}`, isError: true };
        at = parsed.at;
      }
      if (at.getTime() <= now.getTime())
        return { content: 'when: is in the past; give a future time', isError: true };
      const r = ctx.brain.assistant.addReminder({
        text: args.text,
        mode: args.mode,
        due_at: at.toISOString(),
        repeat: args.repeat,
        time_zone: tz,
        message_id: ctx.turnMessageId,
        ...taintOf(ctx),
      });
      options.changed?.();
      return { content: `set ${formatReminder(r, tz)}` };
    },
  };

  const listReminders: Tool<Record<string, never>> = {
    name: 'list_reminders',
    description: 'The pending reminders, soonest first, with their ids.',
    schema: z.strictObject({}),
    readOnly: true,
    run: async (_args, ctx) => {
      const tz = options.timeZone();
      const all = ctx.brain.assistant.reminders();
      if (all.length === 0) return { content: 'no pending reminders' };
      return { content: all.map((r) => formatReminder(r, tz)).join('\n') };
    },
  };

  const cancelReminder: Tool<z.output<typeof idInput>> = {
    name: 'cancel_reminder',
    description: 'Cancel a pending reminder by its id (from list_reminders).',
    schema: idInput,
    readOnly: false,
    run: async (args, ctx) => {
      const r = expected(() => ctx.brain.assistant.cancelReminder(args.id));
      if (typeof r === 'string') return { content: r, isError: true };
      options.changed?.();
      return { content: `cancelled #${r.id}: ${r.text}` };
    },
  };

  const addTask: Tool<z.output<typeof addTaskInput>> = {
    name: 'add_task',
    description: "Add a task to the owner's list: a title, optional priority and due time.",
    schema: addTaskInput,
    readOnly: false,
    run: async (args, ctx) => {
      const tz = options.timeZone();
      let due: string | undefined;
      if (args.due !== undefined) {
        const parsed = parseWhen(args.due, ctx.clock(), tz);
        if (!parsed.ok) return { content: `due: ${parsed.error}`, isError: true };
        due = parsed.at.toISOString();
      }
      const t = ctx.brain.assistant.addTask({
        title: args.title,
        priority: args.priority,
        due_at: due,
        message_id: ctx.turnMessageId,
        ...taintOf(ctx),
      });
      return { content: `added ${formatTask(t, tz)}` };
    },
  };

  const listTasks: Tool<z.output<typeof listTasksInput>> = {
    name: 'list_tasks',
    description: "The owner's tasks (pending by default), with ids.",
    schema: listTasksInput,
    readOnly: true,
    run: async (args, ctx) => {
      const tz = options.timeZone();
      const tasks = ctx.brain.assistant.tasks({ status: args.status });
      if (tasks.length === 0)
        return { content: `no ${args.status === 'all' ? '' : `${args.status} `}tasks` };
      return { content: tasks.map((t) => formatTask(t, tz, ctx.clock())).join('\n') };
    },
  };

  const completeTask: Tool<z.output<typeof idInput>> = {
    name: 'complete_task',
    description: 'Mark a task done by its id.',
    schema: idInput,
    readOnly: false,
    run: async (args, ctx) => {
      const t = expected(() => ctx.brain.assistant.completeTask(args.id));
      if (typeof t === 'string') return { content: t, isError: true };
      return { content: `done #${t.id}: ${t.title}` };
    },
  };

  return [setReminder, listReminders, cancelReminder, addTask, listTasks, completeTask] as Tool[];
}

/**
 * What a turn that has taken in foreign content schedules carries where that content came from,
 * so that it never comes back as the owner's own words.
 */
function taintOf(ctx: ToolContext): { tainted_by?: string } {
  const sources = ctx.taint?.() ?? [];
  if (sources.length === 0) return {};
  const all = sources.join(', ');
  return { tainted_by: all.length <= 500 ? all : `${all.slice(0, 499)}…` };
}

/** An unknown id or a second completion is an answer the model reads, not a failure. */
function expected<T>(fn: () => T): T | string {
  try {
    return fn();
  } catch (err) {
    if (err instanceof BrainError && (err.code === 'NOT_FOUND' || err.code === 'CONFLICT'))
      return err.message;
    throw err;
  }
}
