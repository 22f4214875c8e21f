/** A progress line on stderr: done/total, rate, ETA; redrawn in place on a terminal. */
export interface Progress {
  update(done: number): void;
  end(): void;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

export function createProgress(
  label: string,
  total: number,
  unit: string,
  write: (s: string) => void = (s) => void process.stderr.write(s),
  tty = Boolean(process.stderr.isTTY),
): Progress {
  const started = performance.now();
  let lastDraw = 0;
  const line = (done: number) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? (total - done) / rate : Infinity;
    const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
    return `${label}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${unit} (${pct}%), ${Math.round(rate).toLocaleString('en-US')} ${unit}/s, ETA ${formatDuration(eta)}`;
  };
  return {
    update(done) {
      const now = performance.now();
      // On a terminal, redraw at most 5 times a second; in a log, a line every 10 seconds.
      if (now - lastDraw < (tty ? 200 : 10_000) && done < total) return;
      lastDraw = now;
      write(tty ? `\r${line(done)}\x1b[K` : `${line(done)}\n`);
    },
    end() {
      if (tty) write('\n');
    },
  };
}
