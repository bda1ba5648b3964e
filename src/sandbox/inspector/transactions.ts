/** What the inspector shows of an async operation: its state timeline and its result or error. */
import type { TransactionRecord } from '../state/types.js';
import { redactBody } from '../middleware/request-log.js';

interface TimelineStep {
  status: string;
  at: string;
}

export function transactionView(tx: TransactionRecord): Record<string, unknown> {
  const timeline: TimelineStep[] = [{ status: 'PENDING', at: tx.createdAt }];
  if (tx.processingStartedAt) timeline.push({ status: 'PROCESSING', at: tx.processingStartedAt });
  if ((tx.status === 'COMPLETED' || tx.status === 'FAILED') && tx.processingCompletedAt) {
    timeline.push({ status: tx.status, at: tx.processingCompletedAt });
  }
  return {
    transactionId: tx.transactionId,
    kind: tx.kind,
    status: tx.status,
    message: tx.message,
    timeline,
    scheduledDate: tx.scheduledDate,
    result: tx.result === null ? null : redactBody(tx.result),
    errorCode: tx.errorCode,
    error: tx.error,
  };
}
