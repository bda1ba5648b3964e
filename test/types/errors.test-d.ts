import { describe, expectTypeOf, it } from 'vitest';
import type {
  ApiError,
  ClientClosedError,
  CloseOptions,
  ConfigurationError,
  ConnectionError,
  PartnerClient,
  PartnerError,
  TimeoutError,
  Transaction,
} from '../../src/index.js';
import { TransactionFailedError, TransactionTimeoutError } from '../../src/index.js';

describe('error fields for deciding what to do next', () => {
  it('mayHaveSucceeded is a read-only boolean on connection, timeout and API errors', () => {
    expectTypeOf<ConnectionError['mayHaveSucceeded']>().toEqualTypeOf<boolean>();
    expectTypeOf<TimeoutError['mayHaveSucceeded']>().toEqualTypeOf<boolean>();
    expectTypeOf<ApiError['mayHaveSucceeded']>().toEqualTypeOf<boolean>();
    const error = {} as ApiError;
    // @ts-expect-error set by the client, read by callers
    error.mayHaveSucceeded = true;
  });

  it('ConfigurationError names the option at fault', () => {
    expectTypeOf<ConfigurationError['option']>().toEqualTypeOf<string | undefined>();
  });
});

describe('transaction errors narrow to concrete types', () => {
  it('instanceof TransactionFailedError gives a Transaction, not any', () => {
    const caught: unknown = undefined;
    if (caught instanceof TransactionFailedError) {
      expectTypeOf(caught.transaction).toEqualTypeOf<Transaction>();
      expectTypeOf(caught.transaction.status).not.toBeAny();
      expectTypeOf(caught.transactionId).toEqualTypeOf<string>();
      // @ts-expect-error a typo'd field of the transaction is a type error, not unknown
      void caught.transaction.transactionIdd;
      // @ts-expect-error a typo'd field is a type error, not any
      void caught.transactionn;
    }
  });

  it('instanceof TransactionTimeoutError gives a Transaction | undefined, not any', () => {
    const caught: unknown = undefined;
    if (caught instanceof TransactionTimeoutError) {
      expectTypeOf(caught.lastTransaction).toEqualTypeOf<Transaction | undefined>();
      expectTypeOf(caught.lastTransaction?.status).not.toBeAny();
      // @ts-expect-error a typo'd field is a type error, not any
      void caught.lastTransactionn;
    }
  });
});

describe('closing the client', () => {
  it('close() takes optional CloseOptions; destroy() takes nothing; both resolve to void', () => {
    expectTypeOf<PartnerClient['close']>().parameters.toEqualTypeOf<[options?: CloseOptions]>();
    expectTypeOf<PartnerClient['destroy']>().parameters.toEqualTypeOf<[]>();
    expectTypeOf<ReturnType<PartnerClient['close']>>().toEqualTypeOf<Promise<void>>();
    expectTypeOf<ReturnType<PartnerClient['destroy']>>().toEqualTypeOf<Promise<void>>();
    const client = {} as PartnerClient;
    // @ts-expect-error timeoutMs is a number of milliseconds
    void client.close({ timeoutMs: '30s' });
  });

  it('ClientClosedError is a PartnerError with code CLIENT_CLOSED', () => {
    expectTypeOf<ClientClosedError>().toMatchTypeOf<PartnerError>();
    expectTypeOf<ClientClosedError['requestNotSent']>().toEqualTypeOf<boolean>();
    expectTypeOf<'CLIENT_CLOSED'>().toMatchTypeOf<ClientClosedError['code']>();
  });
});
