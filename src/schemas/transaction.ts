import { z } from 'zod';
import { lazy } from './lazy.js';
import { notShown, openEnum, timestamp } from './common.js';

/**
 * Terminal statuses (spec part 3). Every other value, whatever its name, means "still pending":
 * the non-terminal statuses are not shown.
 */
export const TRANSACTION_STATUSES = ['COMPLETED', 'FAILED'] as const;

/**
 * Transaction (spec part 2). Only the id and the status are required: which of the other fields
 * a pending transaction carries is not shown. `timestamp` is generated on every poll, so it is
 * never a change marker.
 */
const transactionFields = lazy(() => ({
  transactionId: z.string(),
  status: openEnum(TRANSACTION_STATUSES),
  message: z.string().optional(),
  timestamp: timestamp().optional(),
  error: z.string().nullable().optional(),
  errorCode: z.string().nullable().optional(),
  createdAt: timestamp().optional(),
  updatedAt: timestamp().optional(),
  processingStartedAt: timestamp().nullable().optional(),
  processingCompletedAt: timestamp().nullable().optional(),
  scheduledDate: timestamp().nullable().optional(),
}));

/** Without `result`, whose shape depends on the operation (spec part 2: "operation-specific"). */
const transactionBaseSchema = lazy(() => z.looseObject(transactionFields()));

export const transactionSchema = lazy(() => z.looseObject({
  ...transactionFields(),
  result: notShown().optional(),
}));

/**
 * A transaction whose `result` has the operation's type `R` (when COMPLETED). `unknown` where the
 * operation's result is not shown (a transaction read by id alone, purchase, top-up, port-in).
 */
export type Transaction<R = unknown> = z.infer<ReturnType<typeof transactionBaseSchema>> & {
  result?: R | null | undefined;
};

/** A transaction that reached COMPLETED, with the operation's typed result. */
export type CompletedTransaction<R = unknown> = Transaction<R> & { status: 'COMPLETED' };

/** Builds the poll schema (once per operation, on its first poll) of an operation whose result has a known shape. */
export function transactionSchemaWithResult<R>(result: z.ZodType<R>): z.ZodType<Transaction<R>> {
  return transactionBaseSchema().extend({ result: result.nullable().optional() }) as unknown as z.ZodType<Transaction<R>>;
}
