import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The built package under test; BENCH_DIST_DIR points the figures at another build (a candidate
 * fix built elsewhere) for before/after comparisons in the same conditions.
 */
export const DIST_DIR = process.env.BENCH_DIST_DIR ? path.resolve(process.env.BENCH_DIST_DIR) : path.join(ROOT, 'dist');
export const DIST_INDEX = path.join(DIST_DIR, 'index.js');
export const DIST_INDEX_CJS = path.join(DIST_DIR, 'index.cjs');
const DIST_WEBHOOKS = path.join(DIST_DIR, 'webhooks/index.js');

/** The part of the public surface the benchmarks drive (API.md), typed here so bench/ builds alone. */
interface SimPage {
  data: unknown[];
  meta: unknown;
}

interface SimListPromise extends PromiseLike<SimPage>, AsyncIterable<Record<string, unknown>> {}

export interface BenchClient {
  sims: { list(params?: { page?: number; pageSize?: number }): SimListPromise };
  close(): Promise<void>;
}

interface BenchClientOptions {
  baseUrl: string;
  key: string;
  secret: string;
  rateLimit?: { account?: { limit: number; windowMs: number } };
  fetch?: typeof globalThis.fetch;
  maxRetries?: number;
  dispatcher?: unknown;
  middleware?: Array<(request: unknown, next: (request: unknown) => Promise<unknown>) => Promise<unknown>>;
}

export type ClientConstructor = new (options: BenchClientOptions) => BenchClient;

export type Loaded<T> = { ok: true; value: T } | { ok: false; reason: string };

async function importBuilt(file: string, label: string): Promise<Loaded<Record<string, unknown>>> {
  if (!existsSync(file)) return { ok: false, reason: `${label} is not built` };
  try {
    return { ok: true, value: (await import(pathToFileURL(file).href)) as Record<string, unknown> };
  } catch (error) {
    return { ok: false, reason: `${label} fails to import (${(error as Error).message.split('\n')[0]})` };
  }
}

/** PartnerClient from the built package (dist/index.js), or why it cannot be used yet. */
export function loadClient(): Promise<Loaded<ClientConstructor>> {
  return loadClientFrom(DIST_INDEX, 'dist/index.js');
}

/** PartnerClient from the ESM entry `file` of a build, such as another commit's for a before/after figure. */
export async function loadClientFrom(file: string, label: string): Promise<Loaded<ClientConstructor>> {
  const loaded = await importBuilt(file, label);
  if (!loaded.ok) return loaded;
  const PartnerClient = loaded.value.PartnerClient;
  if (typeof PartnerClient !== 'function') return { ok: false, reason: `${label} exports no PartnerClient` };
  return { ok: true, value: PartnerClient as ClientConstructor };
}

export type VerifySignature = (
  rawBody: string | Uint8Array,
  header: string,
  secret: string,
  options?: { toleranceSeconds?: number; now?: Date },
) => unknown;

/** verifySignature from the built webhooks entry (dist/webhooks/index.js). */
export async function loadVerifySignature(): Promise<Loaded<VerifySignature>> {
  const loaded = await importBuilt(DIST_WEBHOOKS, 'dist/webhooks/index.js');
  if (!loaded.ok) return loaded;
  const verify = loaded.value.verifySignature;
  if (typeof verify !== 'function') return { ok: false, reason: 'dist/webhooks/index.js exports no verifySignature' };
  return { ok: true, value: verify as VerifySignature };
}

/** Configured as the brief of the benchmark says: the limiter stays on, with a limit no run reaches. */
export const UNREACHED_RATE_LIMIT = { account: { limit: 1e9, windowMs: 60_000 } };
