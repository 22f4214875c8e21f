/** Logs for people, on stderr only: stdout of `brain mcp` belongs to JSON-RPC. */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

const LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LEVELS)[number];

export function createLogger(
  level: LogLevel = 'warn',
  write: (line: string) => void = (line) => void process.stderr.write(line),
): Logger {
  const max = LEVELS.indexOf(level);
  const at =
    (l: LogLevel) =>
    (message: string): void => {
      if (LEVELS.indexOf(l) <= max) write(`brain: ${l}: ${message}\n`);
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = createLogger('error', () => {});
