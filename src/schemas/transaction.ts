import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { PARSE_OPTIONS } from './messages.js';
import { answerObject, notShown, openEnum, timestamp } from './common.js';

/**
 * Terminal statuses (spec part 3). Every other value, whatever its name, means "still pending":
 * the non-terminal statuses are not shown.
 */
const TRANSACTION_STATUSES = ['COMPLETED', 'FAILED'] as const;

/**
 * Transaction (spec part 2). Only the id and the status are required: which of the other fields
 * a pending transaction carries is not shown. `timestamp` is generated on every poll, so it is
 * never a change marker.
 */
const transactionFields = lazy(() => ({
  /** The transaction's id, as the acceptance named it. */
  transactionId: z.string(),
  /** `COMPLETED` or `FAILED` once it has ended; any other value means it is still running. */
  status: openEnum(TRANSACTION_STATUSES),
  /** The server's description of the current state. */
  message: z.optional(z.string()),
  /** When this answer was made, ISO 8601 (new on every poll). */
  timestamp: z.optional(timestamp()),
  /** Why it FAILED, in the server's words. */
  error: z.optional(z.nullable(z.string())),
  /** Why it FAILED, as an error code (spec part 7). */
  errorCode: z.optional(z.nullable(z.string())),
  /** When the operation was accepted, ISO 8601. */
  createdAt: z.optional(timestamp()),
  /** When its status last changed, ISO 8601. */
  updatedAt: z.optional(timestamp()),
  /** When processing began, ISO 8601. */
  processingStartedAt: z.optional(z.nullable(timestamp())),
  /** When processing ended, ISO 8601. */
  processingCompletedAt: z.optional(z.nullable(timestamp())),
  /** When a scheduled operation is due, ISO 8601. */
  scheduledDate: z.optional(z.nullable(timestamp())),
}));

/** Without `result`, whose shape depends on the operation (spec part 2: "operation-specific"). */
const transactionBaseSchema = lazy(() => answerObject(transactionFields()));

export const transactionSchema = lazy(() =>
  answerObject({
    ...transactionFields(),
    result: z.optional(notShown()),
  }),
);

/**
 * The result of an operation while it runs, or once it failed: the spec shows only the COMPLETED
 * result, so the fields of `R` may be missing until then.
 */
export type PendingResult<R> = R extends object ? Partial<R> : R;

/** The fields of every transaction, whatever its operation and status (spec part 2). */
export interface TransactionFields extends z.infer<ReturnType<typeof transactionBaseSchema>> {}

/**
 * A transaction of an operation whose result has the type `R` once COMPLETED (see
 * `CompletedTransaction`). `R` is `unknown` where the operation's result is not shown (a
 * transaction read by id alone, purchase, top-up, port-in).
 */

export interface Transaction<R = unknown> extends TransactionFields {
  /** Whatever the operation has produced so far; typed in full once COMPLETED. */
  result?: PendingResult<R> | null | undefined;
}

/**
 * A transaction that reached COMPLETED, with the operation's result present and typed (for eSIM
 * provisioning `{ mdn, iccid, qrCode }`, spec part 2). What `wait()` resolves to.
 */
export interface CompletedTransaction<R = unknown> extends TransactionFields {
  status: 'COMPLETED';
  result: R;
}

/**
 * Builds the poll schema (once per operation, on its first poll) of an operation whose result has
 * a known shape. Before COMPLETED the result's fields may be missing (an object result is checked
 * as partial); at COMPLETED the result must be whole, or the poll is a ResponseValidationError.
 */
export function transactionSchemaWithResult<R>(result: z.ZodMiniType<R>): z.ZodMiniType<Transaction<R>> {
  const pending = result instanceof z.ZodMiniObject ? z.partial(result) : result;
  return z.extend(transactionBaseSchema(), { result: z.optional(z.nullable(pending)) }).check(
    z.superRefine((transaction, context) => {
      if (transaction.status !== 'COMPLETED') return;
      const completed = result.safeParse(transaction.result, PARSE_OPTIONS);
      if (completed.success) return;
      for (const issue of completed.error.issues) {
        context.addIssue({ code: 'custom', message: issue.message, path: ['result', ...issue.path] });
      }
    }),
  ) as unknown as z.ZodMiniType<Transaction<R>>;
}
