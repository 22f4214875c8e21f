/** How agent code reports: one event a line, on stderr by default. Never a token or a message body at info. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void;

export const silentLog: Log = () => {};

/** A log writing `level event key=value …` lines to a stream, from `minLevel` up. */
export function streamLog(write: (line: string) => void, minLevel: LogLevel = 'info'): Log {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  const min = order.indexOf(minLevel);
  return (level, event, fields = {}) => {
    if (order.indexOf(level) < min) return;
    const parts = Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    write(`${level} ${event}${parts.length ? ` ${parts.join(' ')}` : ''}\n`);
  };
}
