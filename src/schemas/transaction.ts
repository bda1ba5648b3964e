import * as z from 'zod';
import { lazy } from './lazy.js';
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
  message: z.string().optional(),
  /** When this answer was made, ISO 8601 (new on every poll). */
  timestamp: timestamp().optional(),
  /** Why it FAILED, in the server's words. */
  error: z.string().nullable().optional(),
  /** Why it FAILED, as an error code (spec part 7). */
  errorCode: z.string().nullable().optional(),
  /** When the operation was accepted, ISO 8601. */
  createdAt: timestamp().optional(),
  /** When its status last changed, ISO 8601. */
  updatedAt: timestamp().optional(),
  /** When processing began, ISO 8601. */
  processingStartedAt: timestamp().nullable().optional(),
  /** When processing ended, ISO 8601. */
  processingCompletedAt: timestamp().nullable().optional(),
  /** When a scheduled operation is due, ISO 8601. */
  scheduledDate: timestamp().nullable().optional(),
}));

/** Without `result`, whose shape depends on the operation (spec part 2: "operation-specific"). */
const transactionBaseSchema = lazy(() => answerObject(transactionFields()));

export const transactionSchema = lazy(() =>
  answerObject({
    ...transactionFields(),
    result: notShown().optional(),
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
export function transactionSchemaWithResult<R>(result: z.ZodType<R>): z.ZodType<Transaction<R>> {
  const pending = result instanceof z.ZodObject ? result.partial() : result;
  return transactionBaseSchema()
    .extend({ result: pending.nullable().optional() })
    .superRefine((transaction, context) => {
      if (transaction.status !== 'COMPLETED') return;
      const completed = result.safeParse(transaction.result);
      if (completed.success) return;
      for (const issue of completed.error.issues) {
        context.addIssue({ code: 'custom', message: issue.message, path: ['result', ...issue.path] });
      }
    }) as unknown as z.ZodType<Transaction<R>>;
}
