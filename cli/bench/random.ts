/** Seeded pseudo-random numbers (mulberry32), so every run builds the same brain. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** An index in [0, n) drawn with a Zipf-like skew: small indexes are far more likely. */
  skewed(n: number, power?: number): number;
}

export function createRandom(seed: number): Random {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
    skewed: (n, power = 2.5) => Math.min(n - 1, Math.floor(n * next() ** power)),
  };
}
