/** Seeded pseudo-random numbers (mulberry32): the same seed gives the same sandbox data. */
export interface SandboxRng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  /** `length` lowercase hex characters. */
  hex(length: number): string;
  /** `length` decimal digits (the first may be 0). */
  digits(length: number): string;
}

export function createRng(seed: number): SandboxRng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick() needs a non-empty list');
      return items[int(items.length)] as T;
    },
    hex(length: number): string {
      let out = '';
      for (let i = 0; i < length; i++) out += int(16).toString(16);
      return out;
    },
    digits(length: number): string {
      let out = '';
      for (let i = 0; i < length; i++) out += String(int(10));
      return out;
    },
  };
}
