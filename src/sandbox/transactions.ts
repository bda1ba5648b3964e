/**
 * Async operations (spec part 1 rule 7): a transaction is PENDING, then PROCESSING after one
 * step, then COMPLETED or FAILED after another, on the sandbox clock.
 */
import type { SandboxClock } from './clock.js';
import type { SandboxTransactions, StartTransactionInput } from './context.js';
import type { SandboxState, TransactionRecord } from './state/types.js';

export interface TransactionEngineDeps {
  clock: SandboxClock;
  state: () => SandboxState;
  stepMs: () => number;
  newId: () => string;
  /** Told of every state change (the inspector's timeline). */
  onChange?: (tx: TransactionRecord) => void;
}

export function createTransactions(deps: TransactionEngineDeps): SandboxTransactions {
  const iso = (): string => deps.clock.now().toISOString();
  return {
    start(input: StartTransactionInput): TransactionRecord {
      const now = iso();
      const tx: TransactionRecord = {
        transactionId: deps.newId(),
        kind: input.kind,
        status: 'PENDING',
        message: 'Request accepted and queued for processing',
        result: null,
        error: null,
        errorCode: null,
        createdAt: now,
        updatedAt: now,
        processingStartedAt: null,
        processingCompletedAt: null,
        scheduledDate: input.scheduledDate ?? null,
      };
      const state = deps.state();
      state.transactions.set(tx.transactionId, tx);
      deps.onChange?.(tx);
      deps.clock.setTimeout(() => {
        tx.status = 'PROCESSING';
        tx.message = 'Request is being processed';
        tx.processingStartedAt = tx.updatedAt = iso();
        deps.onChange?.(tx);
        deps.clock.setTimeout(() => {
          let outcome;
          try {
            outcome = input.complete();
          } catch {
            outcome = { errorCode: 'INTERNAL_ERROR', error: 'Processing failed unexpectedly' };
          }
          tx.processingCompletedAt = tx.updatedAt = iso();
          if ('result' in outcome) {
            tx.status = 'COMPLETED';
            tx.message = 'Request completed';
            tx.result = outcome.result;
          } else {
            tx.status = 'FAILED';
            tx.message = 'Request failed';
            tx.errorCode = outcome.errorCode;
            tx.error = outcome.error;
          }
          deps.onChange?.(tx);
        }, deps.stepMs());
      }, deps.stepMs());
      return tx;
    },
    get(transactionId) {
      return deps.state().transactions.get(transactionId);
    },
  };
}

/** The poll answer: `timestamp` is fresh on every poll (spec part 2, Transaction). */
export function transactionToWire(tx: TransactionRecord, nowIso: string): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    transactionId: tx.transactionId,
    status: tx.status,
    message: tx.message,
    timestamp: nowIso,
    createdAt: tx.createdAt,
    updatedAt: tx.updatedAt,
    processingStartedAt: tx.processingStartedAt,
    processingCompletedAt: tx.processingCompletedAt,
    scheduledDate: tx.scheduledDate,
  };
  if (tx.status === 'COMPLETED') wire.result = tx.result;
  if (tx.status === 'FAILED') {
    wire.errorCode = tx.errorCode;
    wire.error = tx.error;
  }
  return wire;
}
