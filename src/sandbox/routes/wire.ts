/** Record → wire shapes shared by several route modules. */
import type { SimRecord, SubscriptionRecord, TransactionRecord } from '../state/types.js';

export function simToWire(sim: SimRecord): Record<string, unknown> {
  const { activationCode: _activationCode, voiceEnabled: _voiceEnabled, ...wire } = sim;
  return wire;
}

export function subscriptionItem(s: SubscriptionRecord): Record<string, unknown> {
  return {
    iccid: s.iccid,
    productName: s.productName,
    status: s.status,
    startDate: s.startDate,
    endDate: s.endDate,
    autoTopUp: s.autoTopUp,
    operator: s.operator,
    network: s.network,
  };
}

export function subscriptionDetail(s: SubscriptionRecord): Record<string, unknown> {
  return { ...subscriptionItem(s), planCode: s.planCode, scheduledDate: s.scheduledDate, orderId: s.orderId };
}

/** What an async write answers (202, or 201 for top-up): where to poll. */
export function acceptedBody(tx: TransactionRecord): Record<string, unknown> {
  return {
    transactionId: tx.transactionId,
    statusEndpoint: `/api/v3/transactions/${tx.transactionId}`,
    status: tx.status,
  };
}
