import { describe, expectTypeOf, it } from 'vitest';
import type {
  ApiPromise,
  CompletedTransaction,
  EsimProvisioningResult,
  Page,
  PagePromise,
  PartnerClient,
  Plan,
  Sim,
  SimListParams,
  Subscription,
  SubscriptionCancellation,
  TransactionHandle,
  Transaction,
  WebhookDelivery,
  WebhookRegistration,
  WebhookRegistrationWithSecret,
} from '../../src/index.js';

declare const client: PartnerClient;

describe('public resource types', () => {
  it('SIM status lists the known values and stays open', () => {
    expectTypeOf<Sim['status']>().toEqualTypeOf<'ACTIVE' | 'INACTIVE' | 'EXPIRED' | (string & {})>();
    expectTypeOf<Sim['assignedStatus']>().toEqualTypeOf<'ASSIGNED' | 'UNASSIGNED' | (string & {})>();
    expectTypeOf<Sim['iccid']>().toEqualTypeOf<string>();
    expectTypeOf<Sim['isEsim']>().toEqualTypeOf<boolean>();
    expectTypeOf<Sim>().toHaveProperty('assignedTo');
  });

  it('list filters are strict enums on the request side', () => {
    expectTypeOf<NonNullable<SimListParams['status']>>().toEqualTypeOf<'ACTIVE' | 'INACTIVE' | 'EXPIRED'>();
    expectTypeOf<NonNullable<SimListParams['assignedStatus']>>().toEqualTypeOf<'ASSIGNED' | 'UNASSIGNED'>();
    // @ts-expect-error an unknown filter value does not compile
    void client.sims.list({ status: 'SUSPENDED' });
  });

  it('list() is a PagePromise: awaitable to a Page and async-iterable over items', () => {
    expectTypeOf(client.sims.list()).toEqualTypeOf<PagePromise<Sim>>();
    expectTypeOf<Awaited<PagePromise<Sim>>>().toEqualTypeOf<Page<Sim>>();
    expectTypeOf<Page<Sim>['data']>().toEqualTypeOf<Sim[]>();
    expectTypeOf(client.sims.list()).toExtend<AsyncIterable<Sim>>();
    expectTypeOf(client.subscriptions.list()).toEqualTypeOf<PagePromise<Subscription>>();
  });

  it('reads and writes resolve to their resource types', () => {
    expectTypeOf(client.plans.retrieve('p')).toEqualTypeOf<ApiPromise<Plan>>();
    expectTypeOf(client.subscriptions.cancel('8901')).toEqualTypeOf<ApiPromise<SubscriptionCancellation>>();
    expectTypeOf<Plan['planType']>().toEqualTypeOf<'FLAT_RATE' | 'PAY_AS_YOU_GO' | (string & {})>();
    expectTypeOf<Plan['tieredPricing']>().toEqualTypeOf<Record<string, unknown> | undefined>();
  });

  it('only the create answer of a webhook registration carries the signing secret', () => {
    expectTypeOf(client.webhooks.create).returns.toEqualTypeOf<ApiPromise<WebhookRegistrationWithSecret>>();
    expectTypeOf<WebhookRegistrationWithSecret['signingSecret']>().toEqualTypeOf<string>();
    // read answers never type it: only the open index signature's unknown remains
    expectTypeOf<WebhookRegistration['signingSecret']>().toEqualTypeOf<unknown>();
    expectTypeOf(client.webhooks.list()).toEqualTypeOf<ApiPromise<WebhookRegistration[]>>();
    expectTypeOf(client.webhooks.deliveries.list()).toEqualTypeOf<ApiPromise<WebhookDelivery[]>>();
  });

  it('async operations resolve to handles whose wait() types the result', () => {
    expectTypeOf(client.esim.provision({})).toEqualTypeOf<ApiPromise<TransactionHandle<EsimProvisioningResult>>>();
    expectTypeOf<TransactionHandle<EsimProvisioningResult>['wait']>().returns.toEqualTypeOf<
      Promise<CompletedTransaction<EsimProvisioningResult>>
    >();
    expectTypeOf<NonNullable<CompletedTransaction<EsimProvisioningResult>['result']>['mdn']>().toEqualTypeOf<string>();
    expectTypeOf<CompletedTransaction['status']>().toEqualTypeOf<'COMPLETED'>();
    expectTypeOf<Transaction['status']>().toEqualTypeOf<'COMPLETED' | 'FAILED' | (string & {})>();
    expectTypeOf(client.transactions.wait('tx')).toEqualTypeOf<Promise<CompletedTransaction>>();
  });

  it('every method takes RequestOptions last', () => {
    expectTypeOf(client.sms.send).parameter(1).toEqualTypeOf<import('../../src/index.js').RequestOptions | undefined>();
    expectTypeOf(client.devices.assign).parameter(2).toEqualTypeOf<import('../../src/index.js').RequestOptions | undefined>();
  });
});
