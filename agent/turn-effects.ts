import type { Brain } from '../src/index.js';

/**
 * What a turn has done that cannot be undone, kept in the brain before it is done: after a crash
 * the service re-runs a turn cut short only when nothing of the kind had started
 * (agent/service/resume.ts).
 */

export interface SideEffect {
  /** The message the turn answered. */
  message: string;
  /** The last tool with side effects it started. */
  tool: string;
}

const key = (session: string) => `turn-effects:${session}`;

/** Called by the loop before a tool that is not read-only runs. */
export function noteSideEffect(brain: Brain, session: string, effect: SideEffect): void {
  brain.setSchedulerState(key(session), effect);
}

/** The side effect last noted in a session, if any. */
export function lastSideEffect(brain: Brain, session: string): SideEffect | undefined {
  return brain.schedulerState(key(session)) as SideEffect | undefined;
}
