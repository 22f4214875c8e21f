import type { Brain } from '../src/index.js';

/**
 * What a turn has done that cannot be undone, kept in the brain before it is done: after a crash
 * the service re-runs a turn cut short only when nothing of the kind had started, and otherwise
 * tells whoever asked what was cut short and what had finished (agent/service/resume.ts).
 */

export interface SideEffect {
  /** The message the turn answered. */
  message: string;
  /** The last tool with side effects it started. */
  tool: string;
  /** Whether that tool had finished. */
  finished: boolean;
  /** The tool with side effects that finished before it, in the same turn. */
  finishedBefore?: string;
}

const key = (session: string) => `turn-effects:${session}`;

/** Called by the loop before a tool that is not read-only runs. */
export function noteSideEffect(
  brain: Brain,
  session: string,
  effect: { message: string; tool: string },
): void {
  const before = lastSideEffect(brain, session);
  const finishedBefore =
    before?.message !== effect.message
      ? undefined
      : before.finished
        ? before.tool
        : before.finishedBefore;
  brain.assistant.setSchedulerState(key(session), {
    ...effect,
    finished: false,
    ...(finishedBefore ? { finishedBefore } : {}),
  } satisfies SideEffect);
}

/** Called by the loop when that tool has returned. */
export function noteSideEffectFinished(brain: Brain, session: string, message: string): void {
  const effect = lastSideEffect(brain, session);
  if (effect?.message === message)
    brain.assistant.setSchedulerState(key(session), { ...effect, finished: true });
}

/** The side effect last noted in a session, if any. */
export function lastSideEffect(brain: Brain, session: string): SideEffect | undefined {
  const effect = brain.assistant.schedulerState(key(session)) as Partial<SideEffect> | undefined;
  if (!effect || typeof effect.message !== 'string' || typeof effect.tool !== 'string')
    return undefined;
  return { finished: false, ...effect } as SideEffect;
}

/** What a notice says was cut short: "after starting X (it may not have finished); …". */
export function describeInterruption(effect: SideEffect): string {
  if (effect.finished) return `after ${effect.tool} had finished, before my reply`;
  const before = effect.finishedBefore
    ? `; the last step that finished was ${effect.finishedBefore}`
    : '';
  return `after starting ${effect.tool}, which may not have finished${before}`;
}
