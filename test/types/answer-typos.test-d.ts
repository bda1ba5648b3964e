/**
 * Answer and event types are exact: a misspelt field does not compile. Every answer and event type
 * exported by `mobile-partner-sdk` and `mobile-partner-sdk/webhooks` has its line here (and in
 * nested objects where it has them); exact-answers.test.ts holds this list to the exports.
 */
import { describe, it } from 'vitest';
import type {
  AsyncAcceptance,
  CompletedTransaction,
  CreditBalance,
  DeviceAssignment,
  EsimActivation,
  EsimProvisioningResult,
  Order,
  Plan,
  PlanPurchase,
  PlanPurchaseResult,
  PortIn,
  PortInEligibility,
  PortInResult,
  RenewNumberResult,
  Sim,
  SimGroup,
  SmsSendResult,
  Subscription,
  SubscriptionCancellation,
  SubscriptionDetail,
  TeamMember,
  TeamMemberCreated,
  TeamMemberDetail,
  TokenResponse,
  TopUpResult,
  Transaction,
  TransactionFields,
  User,
  UserGroupDeletion,
  VoiceQualityWebhook,
  WebhookDeletion,
  WebhookDelivery,
  WebhookRegistration,
  WebhookRegistrationWithSecret,
  WebhookTestResult,
  PageMeta,
  ResponseInfo,
  RateLimitInfo,
  DeliveryInfo,
  SmsEvent,
  SmsEventData,
  UnknownEvent,
  VoiceEvent,
  VoiceEventData,
  VoiceTestCompletedData,
  VoiceTestCompletedEvent,
  WebhookEvent,
  WebhookTestEvent,
  WebhookTestEventData,
} from '../../src/index.js';
import type { VoiceHandshake } from '../../src/webhooks/index.js';

declare function value<T>(): T;

describe('a misspelt field of an answer does not compile', () => {
  it('client answers', () => {
    // @ts-expect-error AsyncAcceptance
    void value<AsyncAcceptance>().transactionid;
    // @ts-expect-error CompletedTransaction
    void value<CompletedTransaction>().stauts;
    // @ts-expect-error CreditBalance
    void value<CreditBalance>().creditbalance;
    // @ts-expect-error CreditBalance entry
    void value<CreditBalance>().creditBalance[0]?.ammount;
    // @ts-expect-error DeviceAssignment
    void value<DeviceAssignment>().imie;
    // @ts-expect-error DeviceAssignment assignedTo
    void value<DeviceAssignment>().assignedTo.emial;
    // @ts-expect-error EsimActivation
    void value<EsimActivation>().qrcodeUrl;
    // @ts-expect-error EsimProvisioningResult
    void value<EsimProvisioningResult>().mdm;
    // @ts-expect-error Order
    void value<Order>().orderid;
    // @ts-expect-error Plan
    void value<Plan>().productID;
    // @ts-expect-error Plan data
    void value<Plan>().data.units;
    // @ts-expect-error PlanPurchase
    void value<PlanPurchase>().orderid;
    // @ts-expect-error PlanPurchaseResult
    void value<PlanPurchaseResult>().transactionid;
    // @ts-expect-error PortIn
    void value<PortIn>().portinNumber;
    // @ts-expect-error PortInEligibility
    void value<PortInEligibility>().elegible;
    // @ts-expect-error PortInResult
    void value<PortInResult>().transactionid;
    // @ts-expect-error RenewNumberResult
    void value<RenewNumberResult>().phonenumber;
    // @ts-expect-error Sim
    void value<Sim>().iccd;
    // @ts-expect-error Sim assignedTo
    void value<Sim>().assignedTo?.emial;
    // @ts-expect-error Sim device
    void value<Sim>().device?.imie;
    // @ts-expect-error SimGroup
    void value<SimGroup>().spendlimit;
    // @ts-expect-error SmsSendResult
    void value<SmsSendResult>().mesage;
    // @ts-expect-error Subscription
    void value<Subscription>().productname;
    // @ts-expect-error SubscriptionCancellation
    void value<SubscriptionCancellation>().canceledDate;
    // @ts-expect-error SubscriptionDetail
    void value<SubscriptionDetail>().plancode;
    // @ts-expect-error TeamMember
    void value<TeamMember>().emial;
    // @ts-expect-error TeamMemberCreated
    void value<TeamMemberCreated>().invitedat;
    // @ts-expect-error TeamMemberDetail
    void value<TeamMemberDetail>().invitedat;
    // @ts-expect-error TokenResponse
    void value<TokenResponse>().accessToken;
    // @ts-expect-error TopUpResult
    void value<TopUpResult>().transactionid;
    // @ts-expect-error Transaction
    void value<Transaction>().erorr;
    // @ts-expect-error TransactionFields
    void value<TransactionFields>().errorcode;
    // @ts-expect-error User
    void value<User>().emial;
    // @ts-expect-error UserGroupDeletion
    void value<UserGroupDeletion>().stauts;
    // @ts-expect-error VoiceQualityWebhook
    void value<VoiceQualityWebhook>().descripton;
    // @ts-expect-error WebhookDeletion
    void value<WebhookDeletion>().deleteed;
    // @ts-expect-error WebhookDelivery
    void value<WebhookDelivery>().deliveryid;
    // @ts-expect-error WebhookRegistration
    void value<WebhookRegistration>().eventtype;
    // @ts-expect-error WebhookRegistration authentication
    void value<WebhookRegistration>().authentication?.tokn;
    // @ts-expect-error WebhookRegistration webhookUrls
    void value<WebhookRegistration>().webhookUrls?.messageURL;
    // @ts-expect-error WebhookRegistration retryPolicy
    void value<WebhookRegistration>().retryPolicy?.maxAttempt;
    // @ts-expect-error WebhookRegistrationWithSecret
    void value<WebhookRegistrationWithSecret>().signingsecret;
    // @ts-expect-error WebhookTestResult
    void value<WebhookTestResult>().responsecode;
    // @ts-expect-error PageMeta
    void value<PageMeta>().totalpages;
    // @ts-expect-error ResponseInfo
    void value<ResponseInfo>().statuss;
    // @ts-expect-error RateLimitInfo
    void value<RateLimitInfo>().remainig;
  });

  it('webhook events', () => {
    // @ts-expect-error DeliveryInfo
    void value<DeliveryInfo>().deliveryid;
    // @ts-expect-error SmsEvent
    void value<SmsEvent>().dta;
    // @ts-expect-error SmsEventData
    void value<SmsEventData>().txt;
    // @ts-expect-error UnknownEvent
    void value<UnknownEvent>().nme;
    // @ts-expect-error VoiceEvent
    void value<VoiceEvent>().dta;
    // @ts-expect-error VoiceEventData
    void value<VoiceEventData>().callid;
    // @ts-expect-error VoiceTestCompletedData
    void value<VoiceTestCompletedData>().Id;
    // @ts-expect-error VoiceTestCompletedEvent
    void value<VoiceTestCompletedEvent>().data.Id;
    // @ts-expect-error WebhookEvent
    void value<WebhookEvent>().typ;
    // @ts-expect-error WebhookTestEvent
    void value<WebhookTestEvent>().data.webhookid;
    // @ts-expect-error WebhookTestEventData
    void value<WebhookTestEventData>().sentat;
    // @ts-expect-error VoiceHandshake
    void value<VoiceHandshake>().sampleRat;
  });
});
