/*
 * What a permission decision is, apart from how the policy reaches it: trust.ts narrows
 * decisions and policy.ts makes them, so both import this rather than each other.
 */

export const PERMISSION_LEVELS = ['allow', 'ask', 'deny'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

export interface Decision {
  decision: PermissionLevel;
  reason: string;
  /** Who settled it: the config or the defaults (`policy`), or a stored rule (`always`). */
  by: 'policy' | 'always';
  /**
   * The first line of the call as the owner is shown it (describeCall in
   * agent/permissions/describe.ts): the tool and its first argument, hidden characters escaped.
   */
  summary: string;
  /** What answering "always" would store, when the call can be allowed always. */
  alwaysPattern?: string | undefined;
  /** A command judged safe: a read-only program, confined, that cannot send data out. */
  confined?: boolean;
  /** It runs with no network: allowed in a tainted turn because the sandbox can cut it off. */
  offline?: boolean;
}
