import type { OpFigures } from './measure.js';

/** The figures the goals are checked against. */
export interface GoalInputs {
  ops: Record<string, OpFigures | undefined>;
  bytes_per_message: number;
  ratios: { send: number; poll: number };
}

export interface GoalResult {
  /** What is asked, e.g. "poll p99 ≤ 0.05 ms". */
  goal: string;
  value: number | null;
  met: boolean;
}

interface Goal {
  id: string;
  label: string;
  /** The operation and statistic it bounds, for goals on latency. */
  op?: string;
  stat?: 'p50_ms' | 'p99_ms';
  value?: (x: GoalInputs) => number | undefined;
  /** The bound is on the excess over this operation's p50 in the same run (`node -e 0`'s). */
  over?: string;
  max?: number;
  min?: number;
}

const latency = (op: string, stat: 'p50_ms' | 'p99_ms', max: number, label?: string): Goal => ({
  id: `${op}_${stat}`,
  label: label ?? `${op} ${stat.slice(0, 3)} ≤ ${max} ms`,
  op,
  stat,
  max,
});

/**
 * A one-shot command as a whole process: its p50 at most `max` ms above `node -e 0`'s p50 in the
 * same run, so that the goal holds on a machine whose node starts faster or slower than this one.
 */
const overNode = (command: string, max: number): Goal => ({
  id: `${command}_process_p50_ms`,
  label: `brain ${command} as a process ≤ node + ${max} ms`,
  op: `${command}_process`,
  stat: 'p50_ms',
  over: 'node_process',
  max,
});

/** The goals for 1,000,000 messages on a 2-core machine. */
export const GOALS: readonly Goal[] = [
  latency('poll', 'p99_ms', 0.05),
  latency('send', 'p50_ms', 0.2),
  latency('send', 'p99_ms', 2),
  latency('read_unread', 'p50_ms', 0.5),
  // The exact top k over every match, not a ranked sample.
  latency('search_fts', 'p50_ms', 10),
  latency('search_fts', 'p99_ms', 60),
  overNode('poll', 40),
  // Every other one-shot command that does not embed.
  ...['search', 'provenance', 'thread', 'send', 'read'].map((command) => overNode(command, 80)),
  {
    id: 'bytes_per_message',
    label: '≤ 600 bytes per message before vectors',
    value: (x) => x.bytes_per_message,
    max: 600,
  },
  {
    id: 'baseline_send_ratio',
    label: 'send ≥ 100× the JSON file',
    value: (x) => x.ratios.send,
    min: 100,
  },
  {
    id: 'baseline_poll_ratio',
    label: 'poll ≥ 100× the JSON file',
    value: (x) => x.ratios.poll,
    min: 100,
  },
];

export function checkGoals(inputs: GoalInputs): Record<string, GoalResult> {
  const out: Record<string, GoalResult> = {};
  for (const g of GOALS) {
    const measured = g.op && g.stat ? inputs.ops[g.op]?.[g.stat] : g.value?.(inputs);
    const floor = g.over === undefined ? 0 : inputs.ops[g.over]?.p50_ms;
    const value = measured === undefined || floor === undefined ? undefined : measured - floor;
    const met =
      value !== undefined &&
      Number.isFinite(value) &&
      (g.max === undefined || value <= g.max) &&
      (g.min === undefined || value >= g.min);
    out[g.id] = { goal: g.label, value: value ?? null, met };
  }
  return out;
}

/** The latency goals on one operation, as "p50 ≤ 0.2 ms met; p99 ≤ 2 ms MISSED". */
export function opGoals(results: Record<string, GoalResult>, op: string): string {
  return GOALS.filter((g) => g.op === op)
    .map((g) => {
      const bound = g.over === undefined ? `${g.max} ms` : `node + ${g.max} ms`;
      const shown = g.stat ? `${g.stat.slice(0, 3)} ≤ ${bound}` : g.label;
      return `${shown} ${results[g.id]?.met ? 'met' : 'MISSED'}`;
    })
    .join('; ');
}
