/**
 * The seam every route module plugs into: the shared clock, dice, account state, counters and
 * the answer helpers that keep envelopes and error codes uniform (spec part 1 rule 2, part 7).
 */
// Router types stay internal: the published declaration files name only the structural types
// below, so an app that never installs hono (the sandbox ships bundled with it) still compiles.
import type { Context, Hono } from 'hono';
import type { SandboxClock } from './clock.js';
import type { ResolvedSandboxOptions, SandboxAccount, SandboxCredentials } from './options.js';
import type { SandboxRng } from './rng.js';
import type { OperatorRecord, SandboxState, SimRecord, TransactionRecord } from './state/types.js';

export type * from './state/types.js';

/** @internal Admin-tier keys may send SMS and submit port-ins; standard keys may not (spec part 5 rule 5, part 1 rule 8). */
export type KeyTier = 'admin' | 'standard';

interface SandboxVariables {
  /** Tier of the bearer token; null on open routes and /_sandbox/. */
  tier: KeyTier | null;
  /** The request-target's path exactly as received, percent-encoding intact. */
  rawPath: string;
  /** Parsed JSON body; undefined when the request had none (set by middleware/body.ts). */
  body: unknown;
  /** Body text as received ('' when none); idempotency compares it. */
  rawBody: string;
  /** Why the body was not parsed (too large, too deep, not JSON), shown in the request log instead of it; null otherwise. */
  bodyNote: string | null;
}

export interface SandboxEnv {
  Variables: SandboxVariables;
}

export type SandboxApp = Hono<SandboxEnv>;
export type SandboxCtx = Context<SandboxEnv>;

/** How route modules register, the sandbox's own and the webhook module alike. */
export type SandboxPlugin = (app: SandboxApp, ctx: SandboxContext) => void;

/**
 * @internal The request context the answer helpers take: the route handler's own context (a Hono
 * `Context` satisfies it).
 */
export interface SandboxRequestContext {
  readonly req: { readonly raw: Request };
}

/** @internal A status the sandbox may answer with a body: every registered code but 101, 204, 205 and 304. */
export type SandboxStatusCode =
  | 100
  | 102
  | 103
  | 200
  | 201
  | 202
  | 203
  | 206
  | 207
  | 208
  | 226
  | 300
  | 301
  | 302
  | 303
  | 305
  | 306
  | 307
  | 308
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 406
  | 407
  | 408
  | 409
  | 410
  | 411
  | 412
  | 413
  | 414
  | 415
  | 416
  | 417
  | 418
  | 421
  | 422
  | 423
  | 424
  | 425
  | 426
  | 428
  | 429
  | 431
  | 451
  | 500
  | 501
  | 502
  | 503
  | 504
  | 505
  | 506
  | 507
  | 508
  | 510
  | 511;

export interface PageMeta {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

export interface AnswerInit {
  status?: SandboxStatusCode;
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface SandboxCounters {
  bump(name: string, by?: number): void;
  get(name: string): number;
  snapshot(): Record<string, number>;
  clear(): void;
}

/** What an async operation ends with: a result (COMPLETED) or a classified failure (FAILED). */
export type TransactionOutcome = { result: Record<string, unknown> } | { errorCode: string; error: string };

export interface StartTransactionInput {
  kind: string;
  /** Evaluated when processing finishes, so it sees the state at that moment. */
  complete: () => TransactionOutcome;
  scheduledDate?: string | null;
}

export interface SandboxTransactions {
  start(input: StartTransactionInput): TransactionRecord;
  get(transactionId: string): TransactionRecord | undefined;
}

/**
 * @internal The state and helpers the sandbox's route modules share (`sandbox.ctx`). For the
 * sandbox's own routes and its tests; not a stable API: drive the sandbox through its control
 * methods or the `/_sandbox/` routes instead.
 */
export interface SandboxContext {
  clock: SandboxClock;
  rng: SandboxRng;
  state: SandboxState;
  options: ResolvedSandboxOptions;
  credentials: SandboxCredentials;
  /** Seedable account state (API access, billing customer); changed by POST /_sandbox/account. */
  account: SandboxAccount;
  counters: SandboxCounters;
  transactions: SandboxTransactions;
  /** `{ success: true, data, meta? }` with 200 unless told. */
  ok(c: SandboxRequestContext, data: unknown, init?: AnswerInit): Response;
  /** `{ success: false, error: { code, message, details? } }`; details never on 5xx (spec part 7 rule 2). */
  fail(c: SandboxRequestContext, status: SandboxStatusCode, code: string, message: string, details?: Record<string, unknown>): Response;
  /**
   * Validates page/pageSize (spec part 8) and answers one page with meta, or 400 VALIDATION_ERROR.
   * `toWire`, when given, turns an item into its wire shape; it runs for the page's items only.
   */
  paginate<T>(c: SandboxRequestContext, items: readonly T[], toWire?: (item: T) => unknown): Response;
  /** The JSON body as an object; {} when absent; null when it is JSON but not an object. */
  readBody(c: SandboxRequestContext): Record<string, unknown> | null;
  /** The JSON object body with `required` fields present, or the 400 VALIDATION_ERROR / MISSING_FIELDS answer. */
  requireBody(c: SandboxRequestContext, required?: readonly string[]): Record<string, unknown> | Response;
  /** ISO timestamp with milliseconds of the sandbox clock. */
  nowIso(): string;
  /** A fresh identifier `<prefix><hex>` from the seeded dice. */
  newId(prefix: string, hexLength?: number): string;
  operator(name: string): OperatorRecord | undefined;
  /** The account's line with that E.164 number. */
  simByNumber(phoneNumber: string): SimRecord | undefined;
  /** Runs on POST /_sandbox/reset after the state is reseeded; modules drop their own state here. */
  onReset(fn: () => void): void;
  /** Runs on close(); modules stop timers and sockets here. */
  onClose(fn: () => void | Promise<void>): void;
}
