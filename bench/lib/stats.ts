export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Rate {
  perSecond: number;
  /** CPU time (user + system) of this process per completed call: robust to a loaded machine. */
  cpuMicrosPerCall: number;
}

/** Calls `fn` from `concurrency` workers until `durationMs` passes. */
export async function callsPerSecond(fn: () => Promise<unknown>, concurrency: number, durationMs: number): Promise<Rate> {
  let completed = 0;
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const end = start + durationMs;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      await fn();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const perSecond = completed / ((performance.now() - start) / 1000);
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond, cpuMicrosPerCall: (cpu.user + cpu.system) / completed };
}

/** Wall time and CPU time (user + system) per call of `count` sequential calls, in µs. */
export async function timeSequential(fn: () => Promise<unknown>, count: number): Promise<{ wallMicrosPerCall: number; cpuMicrosPerCall: number }> {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i++) await fn();
  const wallMicrosPerCall = ((performance.now() - start) * 1000) / count;
  const cpu = process.cpuUsage(cpuBefore);
  return { wallMicrosPerCall, cpuMicrosPerCall: (cpu.user + cpu.system) / count };
}

/** Rotates the order of the variants by round, so none always runs first (warm CPU, GC debt). */
export function rotate<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}
