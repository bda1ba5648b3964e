/**
 * `mobile-partner-sdk`: the typed client of the Partner API. Start with {@link PartnerClient};
 * every error it throws extends {@link PartnerError}. The synchronous webhook checks
 * ({@link verifySignature}, {@link constructEvent}) are here too; the adapters live in
 * `mobile-partner-sdk/webhooks`.
 *
 * @example
 * ```ts
 * import { PartnerClient } from 'mobile-partner-sdk';
 *
 * const client = new PartnerClient(); // PARTNER_API_BASE_URL, PARTNER_API_KEY, PARTNER_API_SECRET
 * for await (const sim of client.sims.list({ status: 'ACTIVE' })) console.log(sim.iccid);
 * ```
 *
 * @packageDocumentation
 * @module mobile-partner-sdk
 */
export { PartnerClient } from './client.js';
export type { RawRequest } from './client.js';
export * from './core/errors.js';
export * from './core/transaction-errors.js';
export { ApiPromise } from './core/api-promise.js';
export type { ClientOptions, CloseOptions, Logger, LogLevel, RateLimitOptions, WindowLimit } from './core/options.js';
export type { RateLimiter, Admission, LimiterContext } from './core/rate-limit.js';
export type { DiagnosticsRequest, RequestEndMessage, RequestErrorMessage, RequestStartMessage } from './core/diagnostics.js';
export type { CallEndReason } from './core/call-end.js';
export { REQUEST_END_CHANNEL, REQUEST_ERROR_CHANNEL, REQUEST_START_CHANNEL } from './core/diagnostics.js';
export type { RequestOptions, ResponseInfo, RateLimitInfo, PageMeta, HttpMethod, Query } from './core/request.js';
export type { Middleware, MiddlewareContext, MiddlewareNext, MiddlewareRequest } from './core/middleware.js';
export { Page, PagePromise } from './core/pagination.js';
export { TransactionHandle } from './core/polling.js';
export type { WaitOptions } from './core/polling.js';
export * from './resources/index.js';
export type { OpenEnum } from './schemas/common.js';
export type {
  AsyncAcceptance,
  CompletedTransaction,
  CreditBalance,
  DeviceAssignment,
  DeviceAssignParams,
  EsimActivation,
  EsimProvisioningResult,
  EsimProvisionParams,
  Order,
  PaginationParams,
  PendingResult,
  Plan,
  PlanPurchase,
  PlanPurchaseParams,
  PortIn,
  PortInEligibility,
  PortInEligibilityParams,
  PortInListParams,
  PortInSubmitParams,
  RenewNumberParams,
  RenewNumberResult,
  Sim,
  SimGroup,
  SimListParams,
  SmsSendParams,
  SmsSendResult,
  Subscription,
  SubscriptionCancellation,
  SubscriptionDetail,
  SubscriptionListParams,
  TeamMember,
  TeamMemberCreated,
  TeamMemberCreateParams,
  TeamMemberDetail,
  TeamMemberListParams,
  TokenResponse,
  TopUpParams,
  Transaction,
  TransactionFields,
  User,
  UserGroupDeletion,
  UserListParams,
  VoiceQualityWebhook,
  VoiceQualityWebhookListParams,
  WebhookApiKeyAuthentication,
  WebhookAuthenticationParams,
  WebhookBasicAuthentication,
  WebhookBearerAuthentication,
  WebhookNoAuthentication,
  WebhookCreateParams,
  WebhookDeletion,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookListParams,
  WebhookRegistration,
  WebhookRegistrationWithSecret,
  WebhookTestResult,
  WebhookUpdateParams,
} from './schemas/index.js';
export type { AsyncOperationName, AsyncOperationResults, PlanPurchaseResult, PortInResult, TopUpResult } from './resources/async-operations.js';
export { verifySignature } from './webhooks/verify.js';
export { verifySignatureAsync } from './webhooks/verify-async.js';
export { signPayload } from './webhooks/sign.js';
export { constructEvent } from './webhooks/events.js';
export { constructEventAsync } from './webhooks/events-async.js';
export type { AsyncWebhookSecretSource, VerifyOptions, VerifiedSignature, WebhookSecret, WebhookSecretSource } from './webhooks/signature-check.js';
export type { SignOptions } from './webhooks/sign.js';
export type { ConstructEventOptions } from './webhooks/event-body.js';
export type {
  DeliveryInfo,
  JsonObject,
  SmsEvent,
  SmsEventData,
  UnknownEvent,
  VoiceEvent,
  VoiceEventData,
  VoiceTestCompletedData,
  VoiceTestCompletedEvent,
  WebhookEvent,
  WebhookEventBase,
  WebhookEventType,
  WebhookTestEvent,
  WebhookTestEventData,
} from './webhooks/event-types.js';
export type { ApiResult } from './core/request.js';
