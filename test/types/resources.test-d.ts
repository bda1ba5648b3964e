import { describe, expectTypeOf, it } from 'vitest';
import type {
  ApiPromise,
  CompletedTransaction,
  CreditBalance,
  DeviceAssignment,
  ErrorCode,
  EsimActivation,
  EsimProvisioningResult,
  Order,
  Page,
  PagePromise,
  PartnerClient,
  Plan,
  PlanPurchase,
  PlanPurchaseResult,
  PortIn,
  PortInEligibility,
  PortInListParams,
  PortInResult,
  RenewNumberResult,
  Sim,
  SimGroup,
  SimListParams,
  SmsSendResult,
  Subscription,
  SubscriptionCancellation,
  SubscriptionDetail,
  SubscriptionListParams,
  TeamMember,
  TeamMemberCreated,
  TeamMemberDetail,
  TokenResponse,
  TopUpResult,
  Transaction,
  TransactionFailedError,
  TransactionHandle,
  User,
  UserGroupDeletion,
  VoiceQualityWebhook,
  WaitOptions,
  WebhookCreateParams,
  WebhookDeletion,
  WebhookDelivery,
  WebhookRegistration,
  WebhookRegistrationWithSecret,
  WebhookTestResult,
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
    expectTypeOf<Plan['tieredPricing']>().toEqualTypeOf<unknown>();
  });

  it('only the create answer of a webhook registration carries the signing secret', () => {
    expectTypeOf(client.webhooks.create).returns.toEqualTypeOf<ApiPromise<WebhookRegistrationWithSecret>>();
    expectTypeOf<WebhookRegistrationWithSecret['signingSecret']>().toEqualTypeOf<string>();
    // read answers never type it: reading it does not compile
    // @ts-expect-error signingSecret is not a field of a registration as read
    void ({} as WebhookRegistration).signingSecret;
    expectTypeOf(client.webhooks.list()).toEqualTypeOf<PagePromise<WebhookRegistration>>();
    expectTypeOf(client.webhooks.deliveries.list()).toEqualTypeOf<PagePromise<WebhookDelivery>>();
  });

  it('async operations resolve to handles whose wait() types the result', () => {
    expectTypeOf(client.esim.provision({})).toEqualTypeOf<ApiPromise<TransactionHandle<EsimProvisioningResult>>>();
    expectTypeOf<TransactionHandle<EsimProvisioningResult>['wait']>().returns.toEqualTypeOf<Promise<CompletedTransaction<EsimProvisioningResult>>>();
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

describe('method names and return types of the whole resource table', () => {
  it('every method of API.md exists with its documented result', () => {
    expectTypeOf(client.auth.token()).toEqualTypeOf<ApiPromise<TokenResponse>>();
    expectTypeOf(client.sims.list()).toEqualTypeOf<PagePromise<Sim>>();
    expectTypeOf(client.sims.retrieveSubscription('i')).toEqualTypeOf<ApiPromise<SubscriptionDetail>>();
    expectTypeOf(client.sims.renewNumber('i')).toEqualTypeOf<ApiPromise<RenewNumberResult>>();
    expectTypeOf(client.subscriptions.list()).toEqualTypeOf<PagePromise<Subscription>>();
    expectTypeOf(client.subscriptions.cancel('i')).toEqualTypeOf<ApiPromise<SubscriptionCancellation>>();
    expectTypeOf(client.plans.retrieve('p')).toEqualTypeOf<ApiPromise<Plan>>();
    expectTypeOf(client.plans.purchase({ planId: 'p', iccid: 'i' })).toEqualTypeOf<ApiPromise<PlanPurchase>>();
    expectTypeOf(client.plans.purchaseAsync({ planId: 'p', iccid: 'i' })).toEqualTypeOf<ApiPromise<TransactionHandle<PlanPurchaseResult>>>();
    expectTypeOf(client.esim.retrieveQr('i')).toEqualTypeOf<ApiPromise<EsimActivation>>();
    expectTypeOf(client.esim.provision({})).toEqualTypeOf<ApiPromise<TransactionHandle<EsimProvisioningResult>>>();
    expectTypeOf(client.portIns.list()).toEqualTypeOf<PagePromise<PortIn>>();
    expectTypeOf(client.portIns.checkEligibility({ portInNumber: '+1' })).toEqualTypeOf<ApiPromise<PortInEligibility>>();
    expectTypeOf(client.portIns.submit({ portInNumber: '+1', iccid: 'i' })).toEqualTypeOf<ApiPromise<TransactionHandle<PortInResult>>>();
    expectTypeOf(client.billing.retrieveCreditBalance()).toEqualTypeOf<ApiPromise<CreditBalance>>();
    expectTypeOf(client.billing.topUp({ amount: 1 })).toEqualTypeOf<ApiPromise<TransactionHandle<TopUpResult>>>();
    expectTypeOf(client.teamMembers.list()).toEqualTypeOf<PagePromise<TeamMember>>();
    expectTypeOf(client.teamMembers.retrieve('e')).toEqualTypeOf<ApiPromise<TeamMemberDetail>>();
    expectTypeOf(client.teamMembers.create({ name: 'n', email: 'e', role: 'Admin' })).toEqualTypeOf<ApiPromise<TeamMemberCreated>>();
    expectTypeOf(client.simGroups.retrieve('g')).toEqualTypeOf<ApiPromise<SimGroup>>();
    expectTypeOf(client.userGroups.delete('g')).toEqualTypeOf<ApiPromise<UserGroupDeletion>>();
    expectTypeOf(client.devices.assign('imei', { email: 'e' })).toEqualTypeOf<ApiPromise<DeviceAssignment>>();
    expectTypeOf(client.sms.send({ fromNumber: '+1', toNumber: '+2', text: 't' })).toEqualTypeOf<ApiPromise<SmsSendResult>>();
    expectTypeOf(client.voiceQuality.webhooks.list()).toEqualTypeOf<PagePromise<VoiceQualityWebhook>>();
    expectTypeOf(client.webhooks.create({ operator: 'o', network: 'n', eventType: 'sms' })).toEqualTypeOf<
      ApiPromise<WebhookRegistrationWithSecret>
    >();
    expectTypeOf(client.webhooks.list()).toEqualTypeOf<PagePromise<WebhookRegistration>>();
    expectTypeOf(client.webhooks.retrieve('w')).toEqualTypeOf<ApiPromise<WebhookRegistration>>();
    expectTypeOf(client.webhooks.update('w', {})).toEqualTypeOf<ApiPromise<WebhookRegistration>>();
    expectTypeOf(client.webhooks.delete('w')).toEqualTypeOf<ApiPromise<WebhookDeletion>>();
    expectTypeOf(client.webhooks.test('w')).toEqualTypeOf<ApiPromise<WebhookTestResult>>();
    expectTypeOf(client.webhooks.deliveries.list()).toEqualTypeOf<PagePromise<WebhookDelivery>>();
    expectTypeOf(client.webhooks.deliveries.redeliver('d')).toEqualTypeOf<ApiPromise<WebhookDelivery>>();
    expectTypeOf(client.transactions.retrieve('t')).toEqualTypeOf<ApiPromise<Transaction>>();
    expectTypeOf(client.transactions.wait('t')).toEqualTypeOf<Promise<CompletedTransaction>>();
    expectTypeOf(client.orders.retrieve('o')).toEqualTypeOf<ApiPromise<Order>>();
    expectTypeOf(client.users.list()).toEqualTypeOf<PagePromise<User>>();
  });

  it('no public resource type is, or has a field that is, any', () => {
    // T[keyof T] collapses to any as soon as one field is any
    type Fields<T> = T[keyof T];
    expectTypeOf<Fields<Sim>>().not.toBeAny();
    expectTypeOf<Fields<Subscription>>().not.toBeAny();
    expectTypeOf<Fields<SubscriptionDetail>>().not.toBeAny();
    expectTypeOf<Fields<SubscriptionCancellation>>().not.toBeAny();
    expectTypeOf<Fields<Plan>>().not.toBeAny();
    expectTypeOf<Fields<Plan['data']>>().not.toBeAny();
    expectTypeOf<Fields<PortIn>>().not.toBeAny();
    expectTypeOf<Fields<TeamMemberDetail>>().not.toBeAny();
    expectTypeOf<Fields<SimGroup>>().not.toBeAny();
    expectTypeOf<Fields<CreditBalance['creditBalance'][number]>>().not.toBeAny();
    expectTypeOf<Fields<EsimActivation>>().not.toBeAny();
    expectTypeOf<Fields<DeviceAssignment>>().not.toBeAny();
    expectTypeOf<Fields<UserGroupDeletion>>().not.toBeAny();
    expectTypeOf<Fields<SmsSendResult>>().not.toBeAny();
    expectTypeOf<Fields<Transaction>>().not.toBeAny();
    expectTypeOf<Fields<VoiceQualityWebhook>>().not.toBeAny();
    expectTypeOf<Fields<WebhookRegistrationWithSecret>>().not.toBeAny();
    expectTypeOf<Fields<NonNullable<WebhookRegistration['retryPolicy']>>>().not.toBeAny();
    expectTypeOf<Fields<WebhookDelivery>>().not.toBeAny();
    expectTypeOf<Fields<TokenResponse>>().not.toBeAny();
    expectTypeOf<Fields<Page<Sim>>>().not.toBeAny();
    expectTypeOf<Fields<TransactionHandle<EsimProvisioningResult>>>().not.toBeAny();
    expectTypeOf<Parameters<PartnerClient['request']>[0]>().not.toBeAny();
  });

  it('answer enums stay open while request filters stay strict', () => {
    expectTypeOf<Subscription['status']>().toEqualTypeOf<'ACTIVE' | 'PENDING' | 'SCHEDULED' | 'CANCELLED' | 'CANCEL_SCHEDULED' | (string & {})>();
    expectTypeOf<NonNullable<SubscriptionListParams['status']>>().toEqualTypeOf<'ACTIVE' | 'PENDING' | 'SCHEDULED' | 'CANCELLED'>();
    expectTypeOf<PortIn['status']>().toEqualTypeOf<'PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | (string & {})>();
    expectTypeOf<NonNullable<PortInListParams['status']>>().toEqualTypeOf<'PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED'>();
    expectTypeOf<WebhookRegistration['eventType']>().toEqualTypeOf<'sms' | 'voice' | 'both' | (string & {})>();
    expectTypeOf<WebhookCreateParams['eventType']>().toEqualTypeOf<'sms' | 'voice' | 'both'>();
    expectTypeOf<WebhookDelivery['status']>().toEqualTypeOf<'PENDING' | 'FAILED' | (string & {})>();
    expectTypeOf<EsimActivation['activationCode']>().toEqualTypeOf<string | null>();
    // @ts-expect-error sms requires all three fields
    void client.sms.send({ fromNumber: '+1', toNumber: '+2' });
  });

  it('a failed wait carries the transaction and the typed error code', () => {
    expectTypeOf<TransactionFailedError['errorCode']>().toEqualTypeOf<ErrorCode | undefined>();
    expectTypeOf<TransactionFailedError['transaction']['transactionId']>().toEqualTypeOf<string>();
    expectTypeOf<WaitOptions<EsimProvisioningResult>['onProgress']>().toEqualTypeOf<
      ((transaction: Transaction<EsimProvisioningResult>) => void) | undefined
    >();
  });
});
