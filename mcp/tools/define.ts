import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  readTimeBound,
  check,
  isBrainError,
  toZod,
  type Brain,
  type Declaration,
  type Embedder,
  type OutputOf,
} from '../../src/index.js';
import type { Logger } from '../log.js';

/** What every tool gets: the brain, and who is calling (never taken from the arguments). */
export interface ToolContext {
  brain: Brain;
  /** The calling agent, for tools that only read: never writes. */
  caller: string;
  /**
   * The calling agent, for tools that write: marks it seen (last_seen_at) on the session's first
   * write if the session's start could not.
   */
  agent(): string;
  log: Logger;
  /** The embedder for queries, once ready; search answers by words until then. */
  embedder(): Embedder | undefined;
  /** Folders whose files send_message may attach by path; empty: paths are refused. */
  attachRoots: readonly string[];
  /** The owner's time zone, in which a query's time words are read; undefined: the system's. */
  timeZone?: string | undefined;
}

/** A tool's answer: structured content for programs, a compact text rendering for the model. */
export interface ToolAnswer<T> {
  data: T;
  text: string;
}

/** A tool's input: the declaration of a library input (src/input/), or a zod object of its own. */
type ToolInput = Declaration | z.ZodObject;
type ArgsOf<I extends ToolInput> = I extends z.ZodObject
  ? z.output<I>
  : I extends Declaration
    ? OutputOf<I>
    : never;

export interface ToolDefinition<I extends ToolInput, O extends z.ZodObject> {
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Required<
    Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>
  >;
  /** May be async (e.g. a search that embeds its query); a thrown error becomes `isError`. */
  run(
    args: ArgsOf<I>,
  ): ToolAnswer<Declared<z.input<O>>> | Promise<ToolAnswer<Declared<z.input<O>>>>;
}

/** An event time as the caller said it ("last Tuesday", an ISO time), read in the owner's zone. */
export async function readOccurred(
  ctx: ToolContext,
  said: string | undefined,
): Promise<Awaited<ReturnType<typeof readTimeBound>> | undefined> {
  if (said === undefined) return undefined;
  return readTimeBound('occurred_at', said, { now: new Date(), timeZone: ctx.timeZone });
}

/** The declared fields of an output schema, without the index signature loose objects add. */
type Declared<T> = T extends (infer U)[]
  ? Declared<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Declared<T[K]> }
    : T;

/**
 * Register one tool. Input is validated twice: the SDK checks the JSON shape against `input`
 * (types, enums, bounds; for a declaration, the shape `toZod` derives from it), then the
 * declaration's check (the library's own, with its words) or the brain checks everything else;
 * either way a bad argument answers `isError` with a message naming the field, and nothing is
 * written.
 */
export function defineTool<I extends ToolInput, O extends z.ZodObject>(
  server: McpServer,
  ctx: ToolContext,
  name: string,
  def: ToolDefinition<I, O>,
): void {
  server.registerTool(
    name,
    {
      title: def.title,
      description: def.description,
      inputSchema: isZod(def.input) ? def.input : toZod(def.input, z),
      outputSchema: def.output,
      annotations: { ...def.annotations, openWorldHint: false },
    },
    // The SDK types the arguments from the schema; `run` is typed the same way.
    ((args: unknown) =>
      answer(ctx.log, name, () =>
        def.run((isZod(def.input) ? args : check(def.input, args)) as ArgsOf<I>),
      )) as never,
  );
}

function isZod(input: ToolInput): input is z.ZodObject {
  return '_zod' in input;
}

async function answer<T>(
  log: Logger,
  name: string,
  run: () => ToolAnswer<T> | Promise<ToolAnswer<T>>,
): Promise<CallToolResult> {
  try {
    const { data, text } = await run();
    return {
      content: [{ type: 'text', text }],
      structuredContent: data as Record<string, unknown>,
    };
  } catch (err) {
    return toolError(log, name, err);
  }
}

/** A failure is a value the model can read and act on, never a crash of the server. */
export function toolError(log: Logger, name: string, err: unknown): CallToolResult {
  let text: string;
  if (isBrainError(err)) {
    text = `${err.code}: ${err.message}`;
  } else {
    const e = err as { code?: unknown; message?: unknown };
    const storage = typeof e?.code === 'string' && e.code.startsWith('SQLITE_');
    text = storage
      ? `STORAGE_FAILED: ${String(e.code)}: ${String(e.message)}`
      : `INTERNAL: ${String(e?.message ?? err)}`;
    log.error(`${name}: ${text}`);
  }
  return { content: [{ type: 'text', text }], isError: true };
}
