import { z } from 'zod';
import { isHeadText } from '../history.js';
import type { ChatMessage } from '../models/types.js';
import type { Tool } from '../tools/types.js';
import type { Decision, PermissionLevel } from './decision.js';

/**
 * Trust follows origin through a turn. Who drives the turn picks a tool profile; everything the
 * turn takes in that the owner did not write (another agent's message, a stranger's chat, a
 * forwarded message, a web page, a file, an MCP server's answer) taints it, and from then on a
 * call that can send data out or reads a secret needs the owner's yes. The rules allow what is
 * known to be safe and ask for the rest: an unknown tool is taken to reach out and to read the
 * owner's data.
 */

/** Who drives a turn: the owner, a person who is not the owner, another agent, or the scheduler. */
export const DRIVERS = ['owner', 'contact', 'agent', 'scheduled'] as const;
export type Driver = (typeof DRIVERS)[number];

const levels = z.enum(['allow', 'ask', 'deny']);
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,200}$/;

const profile = z
  .strictObject({
    /**
     * Per tool, by its exact name: `deny` takes it away, `ask` always asks, `allow` offers it
     * under the usual policy. For contacts and agents a tool is offered only when named here.
     */
    tools: z
      .record(z.string(), levels)
      .superRefine((tools, ctx) => {
        // Each key by its own path, so the error names the exact entry that is wrong.
        for (const key of Object.keys(tools))
          if (!TOOL_NAME.test(key))
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message:
                'must be a tool name (letters, digits, _ - .): a profile grants by exact name, not by pattern',
            });
      })
      .default({}),
  })
  .prefault({});

/** `permissions.profiles` in the assistant's config: one tool profile per driver. */
export const profilesConfig = z
  .strictObject({
    owner: profile,
    contact: profile,
    agent: profile,
    scheduled: profile,
  })
  .prefault({});
export type ProfilesConfig = z.output<typeof profilesConfig>;

/** What one tool can do beyond answering: the facts trust decides by. */
export interface Reach {
  /**
   * How a call can send data out: never; always; through the URL or the query it is given
   * (a value the owner typed is the owner's choice); or, for run_command, unless it is confined
   * (judged safe: a read-only program with no network).
   */
  egress: 'never' | 'always' | 'url' | 'query' | 'command';
  /**
   * It writes where what is written outlives the turn and is read as the owner's (files in the
   * workspace, SOUL.md among them): in a tainted turn it asks, whatever a rule says.
   */
  persists?: boolean;
  /** It reads the owner's memories, inbox, files or environment. */
  ownerData: boolean;
  /** What it answers comes from outside the owner: taking it in taints the turn. */
  foreignOutput: boolean;
}

const own = (egress: Reach['egress'] = 'never'): Reach => ({
  egress,
  ownerData: true,
  foreignOutput: false,
});

/** The built-in tools, by name: the one table to audit. */
const BUILT_IN: Record<string, Reach> = {
  read_file: { egress: 'never', ownerData: true, foreignOutput: true },
  list_files: { egress: 'never', ownerData: true, foreignOutput: true },
  write_file: { ...own(), persists: true },
  run_command: { egress: 'command', ownerData: true, foreignOutput: true },
  web_fetch: { egress: 'url', ownerData: false, foreignOutput: true },
  web_search: { egress: 'query', ownerData: false, foreignOutput: true },
  search_memory: { egress: 'never', ownerData: true, foreignOutput: true },
  read_inbox: { egress: 'never', ownerData: true, foreignOutput: true },
  save_memory: own(),
  send_message: { egress: 'always', ownerData: false, foreignOutput: false },
  // A file of the owner's, out of the machine to the owner's own chat.
  send_file: { egress: 'always', ownerData: true, foreignOutput: false },
  set_reminder: own(),
  cancel_reminder: own(),
  list_reminders: own(),
  add_task: own(),
  list_tasks: own(),
  complete_task: own(),
  find_tools: { egress: 'never', ownerData: false, foreignOutput: true },
  // Its sub-turn's calls are judged one by one; its answer says itself whether it is foreign.
  delegate_task: { egress: 'never', ownerData: false, foreignOutput: false },
};

/** A tool's reach: the table for built-in tools; otherwise what it says of itself, else the worst. */
export function reachOf(tool: Tool): Reach {
  const known = Object.hasOwn(BUILT_IN, tool.name) ? BUILT_IN[tool.name] : undefined;
  if (known) return known;
  return {
    egress: (tool.egress ?? !tool.readOnly) ? 'always' : 'never',
    ownerData: tool.ownerData ?? true,
    foreignOutput: true,
  };
}

/** What a turn knows of its own trust: who drives it and what foreign content it has taken in. */
export interface TurnTrust {
  readonly driver: Driver;
  /** Where foreign content came from (`tool:web_fetch`, `agent:nova`), in the order taken in. */
  readonly sources: readonly string[];
  /** The owner's own words in the context: a URL or query written there is the owner's choice. */
  readonly ownerText: string;
}

/**
 * A turn's trust, grown as it takes content in. With `fixedOwnerText` the owner's words are only
 * `ownerText`: a delegated sub-turn's task is the model's words, so a URL in it is not the owner's.
 */
export function createTrust(
  driver: Driver,
  ownerText = '',
  sources: Iterable<string> = [],
  fixedOwnerText = false,
) {
  const seen = new Set<string>(sources);
  // Joined when read (only a tainted turn's way out reads it): a long session adds many pieces.
  const pieces = ownerText ? [ownerText] : [];
  let joined: string | undefined;
  return {
    get driver() {
      return driver;
    },
    get sources(): readonly string[] {
      return [...seen];
    },
    get ownerText() {
      return (joined ??= pieces.join('\n'));
    },
    taint(source: string) {
      seen.add(source);
    },
    /** Every source marked in this text (content wrapped by `untrusted()`). */
    taintFrom(content: string) {
      for (const s of markedSources(content)) seen.add(s);
    },
    addOwnerText(more: string) {
      if (more === '' || fixedOwnerText) return;
      pieces.push(more);
      joined = undefined;
    },
  };
}
export type MutableTrust = ReturnType<typeof createTrust>;

const MARK = /<untrusted source="([^"]*)">/g;
const BLOCK = /<untrusted source="[^"]*">[\s\S]*?<\/untrusted>/g;

/** The sources of every block of foreign content in a text (agent/untrusted.ts marks them). */
export function markedSources(text: string): string[] {
  if (!text.includes('<untrusted source="')) return [];
  return [...text.matchAll(MARK)].map((m) => m[1] || 'unknown');
}

/** A text without its foreign blocks: what of it the owner wrote. */
export function withoutForeign(text: string): string {
  return text.includes('<untrusted') ? text.replace(BLOCK, ' ') : text;
}

/**
 * Names of files that hold secrets by convention: keys, credentials, tokens, the shell's and
 * tools' login files. A read of one in a tainted turn needs the owner's yes.
 */
const SECRET_NAME =
  /(?:^|[/\s'"=])(?:\.env(?:\.[\w.-]+)?|\.netrc|\.git-credentials|\.npmrc|\.pypirc|\.pgpass|\.ssh|\.gnupg|\.aws|\.kube|\.docker|id_(?:rsa|dsa|ecdsa|ed25519)[\w.]*|[\w.-]+\.(?:pem|key|p12|pfx|kdbx|keystore|jks)|credentials(?:\.[\w]+)?|secrets?(?:\.[\w]+)?|tokens?(?:\.[\w]+)?|assistant\.json|environ)(?:$|[/\s'"])/i;

/** Whether a call reads something that holds secrets (a key file, credentials, an environment). */
export function readsSecret(tool: Tool, input: unknown): boolean {
  const args = (input ?? {}) as Record<string, unknown>;
  if (tool.name === 'read_file' || tool.name === 'list_files')
    return typeof args.path === 'string' && SECRET_NAME.test(args.path);
  if (tool.name === 'run_command')
    return typeof args.command === 'string' && SECRET_NAME.test(args.command);
  return false;
}

/** Whether this call can send data out of the turn, given what the owner typed. */
export function sendsOut(
  reach: Reach,
  input: unknown,
  trust: TurnTrust,
  decision: Decision,
): boolean {
  const args = (input ?? {}) as Record<string, unknown>;
  switch (reach.egress) {
    case 'never':
      return false;
    case 'always':
      return true;
    case 'url':
      return !ownerUrls(trust).has(String(args.url));
    case 'query':
      return !ownerWrote(trust, args.query);
    case 'command':
      return decision.confined !== true;
  }
}

const URL_TOKEN = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/**
 * The URLs the owner wrote, each whole as written (trailing punctuation off): a URL the model
 * made up, or one the owner's text merely starts, carries data the owner did not choose.
 */
function ownerUrls(trust: TurnTrust): Set<string> {
  const urls = new Set<string>();
  for (const [url] of trust.ownerText.matchAll(URL_TOKEN)) {
    urls.add(url);
    urls.add(url.replace(/[.,;:!?)\]}]+$/, ''));
  }
  return urls;
}

function ownerWrote(trust: TurnTrust, value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '' && trust.ownerText.includes(value.trim());
}

/**
 * A profile's level for a tool in a turn: undefined means the usual policy. For contacts and
 * agents a tool not named in their profile is not offered at all (`deny`).
 */
export function profileLevel(
  profiles: ProfilesConfig,
  driver: Driver,
  tool: Tool,
): PermissionLevel | undefined {
  const named = profiles[driver].tools;
  const level = Object.hasOwn(named, tool.name) ? named[tool.name] : undefined;
  if (level) return level;
  return driver === 'contact' || driver === 'agent' ? 'deny' : undefined;
}

/** The tools a turn is offered: those its driver's profile does not take away. */
export function offeredTools(
  tools: readonly Tool[],
  profiles: ProfilesConfig,
  driver: Driver,
): Tool[] {
  return tools.filter((t) => profileLevel(profiles, driver, t) !== 'deny');
}

const DRIVER_NAMES: Record<Driver, string> = {
  owner: "the owner's",
  contact: "a contact's",
  agent: "another agent's",
  scheduled: 'a scheduled',
};

/**
 * The policy's decision seen through the turn's trust: the profile first (a tool it takes away is
 * denied, one it marks `ask` asks), then the taint (a call that sends data out or reads a secret,
 * in a turn that has taken in foreign content, asks the owner, whatever the config or a stored
 * "always" rule says, and cannot be allowed always). A configured deny stays a deny.
 */
export function applyTrust(
  decision: Decision,
  tool: Tool,
  input: unknown,
  trust: TurnTrust,
  profiles: ProfilesConfig,
  /** Whether commands can be run with no network (run_command's sandbox is in use). */
  offline: () => boolean = () => false,
): Decision {
  if (decision.decision === 'deny') return decision;
  const level = profileLevel(profiles, trust.driver, tool);
  if (level === 'deny')
    return {
      ...decision,
      decision: 'deny',
      by: 'policy',
      reason: `${tool.name} is not offered in ${DRIVER_NAMES[trust.driver]} turn (permissions.profiles.${trust.driver}.tools does not grant it)`,
      alwaysPattern: undefined,
    };
  let next = decision;
  if (level === 'ask' && next.decision === 'allow')
    next = {
      ...next,
      decision: 'ask',
      by: 'policy',
      reason: `permissions.profiles.${trust.driver}.tools.${tool.name} is ask`,
    };
  if (trust.sources.length === 0) return next;
  const reach = reachOf(tool);
  const out = sendsOut(reach, input, trust, decision);
  const secret = readsSecret(tool, input);
  const persists = reach.persists === true;
  if (!out && !secret && !persists) return next;
  // A command the policy or a rule allows can still run, cut off from the network: what it
  // read cannot leave. The owner's yes to an ask is what gives one the network.
  if (out && !secret && reach.egress === 'command' && next.decision === 'allow' && offline())
    return {
      ...next,
      offline: true,
      reason: `${next.reason}; with no network: the turn has taken in content from outside the owner`,
    };
  const what = out
    ? 'can send data out'
    : secret
      ? 'reads a secret'
      : 'writes what later turns read as yours';
  const from = trust.sources.slice(0, 3).join(', ') + (trust.sources.length > 3 ? ', …' : '');
  return {
    ...next,
    decision: 'ask',
    by: 'policy',
    reason: `this call ${what}, and the turn has taken in content from outside the owner (${from}); a new session (/new) starts clean`,
    alwaysPattern: undefined,
  };
}

/**
 * What the context holds, for the turn's trust: every block of foreign content taints it (a
 * page read three turns ago is still there for the model to obey), and the owner's own words
 * are where a URL or query the owner chose can be found. Summaries and notes are not the
 * owner's words.
 */
export function trustContext(trust: MutableTrust, history: ChatMessage[]): void {
  for (const message of history) {
    for (const block of message.content) {
      let read = trustRead.get(block);
      if (!read) {
        const text =
          block.type === 'tool_result' ? block.content : block.type === 'text' ? block.text : '';
        read = { sources: markedSources(text) };
        if (block.type === 'text' && message.role === 'user' && !isHeadText(text))
          read.owner = withoutForeign(text);
        trustRead.set(block, read);
      }
      for (const s of read.sources) trust.taint(s);
      if (read.owner !== undefined) trust.addOwnerText(read.owner);
    }
  }
}

/**
 * What each block of a context says for trust, read once: a long-running process rebuilds the
 * context from the same blocks every turn (agent/compaction.ts SessionCache).
 */
const trustRead = new WeakMap<object, { sources: string[]; owner?: string }>();
