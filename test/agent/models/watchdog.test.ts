import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idleWatchdog } from '../../../agent/models/watchdog.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the idle watchdog', () => {
  it('fires once after the given quiet time, each touch starting the time again', () => {
    const fired = vi.fn();
    const dog = idleWatchdog(1_000, fired);
    vi.advanceTimersByTime(900);
    dog.touch();
    vi.advanceTimersByTime(900);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(fired).toHaveBeenCalledTimes(1);
    dog.touch(); // too late: it has fired, and stays fired
    vi.advanceTimersByTime(5_000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('never fires once stopped', () => {
    const fired = vi.fn();
    idleWatchdog(1_000, fired).stop();
    vi.advanceTimersByTime(10_000);
    expect(fired).not.toHaveBeenCalled();
  });
});
