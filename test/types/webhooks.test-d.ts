import { describe, expectTypeOf, it } from 'vitest';
import type {
  Page,
  PagePromise,
  PartnerClient,
  WebhookAuthenticationParams,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookUpdateParams,
} from '../../src/index.js';

declare const client: PartnerClient;

describe('webhooks.update takes exactly what PUT /webhooks/{id} applies', () => {
  it('null removes a URL; status is typed and lifts a suspension', () => {
    void client.webhooks.update('wh', { webhookUrls: { messageUrl: null, voiceStreamUrl: 'wss://p/stream' } });
    void client.webhooks.update('wh', { status: 'active' });
    void client.webhooks.update('wh', { status: 'suspended' });
    expectTypeOf<NonNullable<WebhookUpdateParams['status']>>().toEqualTypeOf<'active' | 'suspended'>();
    expectTypeOf<NonNullable<NonNullable<WebhookUpdateParams['webhookUrls']>['messageUrl']>>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<WebhookUpdateParams['webhookUrls']>['messageUrl']>().toEqualTypeOf<string | null | undefined>();
    // @ts-expect-error a status the registration cannot take
    void client.webhooks.update('wh', { status: 'paused' });
  });

  it('each authentication type needs its credentials, and takes no other member', () => {
    void client.webhooks.update('wh', { authentication: { type: 'bearer', token: 't' } });
    void client.webhooks.update('wh', { authentication: { type: 'none' } });
    void client.webhooks.update('wh', { authentication: { type: 'basic', username: 'u', password: 'p' } });
    void client.webhooks.update('wh', { authentication: { type: 'api_key', key: 'k', headerName: 'X-Key' } });
    void client.webhooks.update('wh', { authentication: { type: 'api_key', key: 'k' } });
    // @ts-expect-error basic without its password
    void client.webhooks.update('wh', { authentication: { type: 'basic', username: 'u' } });
    // @ts-expect-error a member of no authentication type
    void client.webhooks.update('wh', { authentication: { type: 'basic', username: 'u', password: 'p', realm: 'partner' } });
    // @ts-expect-error api_key without its key
    void client.webhooks.update('wh', { authentication: { type: 'api_key', headerName: 'X-Key' } });
    // @ts-expect-error bearer without a token
    void client.webhooks.update('wh', { authentication: { type: 'bearer' } });
    // @ts-expect-error an unknown authentication type
    void client.webhooks.update('wh', { authentication: { type: 'oauth' } });
    // @ts-expect-error none carries no credential
    void client.webhooks.update('wh', { authentication: { type: 'none', token: 't' } });
  });

  it('refuses members PUT does not apply, and null outside webhookUrls', () => {
    // @ts-expect-error update is a create flag only
    void client.webhooks.update('wh', { update: true });
    // @ts-expect-error the secret is never sent
    void client.webhooks.update('wh', { signingSecret: 'whsec_x' });
    // @ts-expect-error a misspelt URL member
    void client.webhooks.update('wh', { webhookUrls: { messageURL: 'https://p' } });
    // @ts-expect-error null only removes URLs
    void client.webhooks.update('wh', { eventType: null });
    // @ts-expect-error null only removes URL members, not the whole object
    void client.webhooks.update('wh', { webhookUrls: null });
    // @ts-expect-error retry policy bounds are numbers
    void client.webhooks.update('wh', { retryPolicy: { maxAttempts: '3' } });
  });

  it('create takes status, and no null URL', () => {
    void client.webhooks.create({ operator: 'o', network: 'n', eventType: 'sms', status: 'suspended' });
    // @ts-expect-error null removes a URL on update only
    void client.webhooks.create({ operator: 'o', network: 'n', eventType: 'sms', webhookUrls: { messageUrl: null } });
  });
});

describe('webhooks.deliveries.list is paged', () => {
  it('takes page, pageSize, webhookId and status, and returns a PagePromise', () => {
    expectTypeOf(client.webhooks.deliveries.list({ page: 2, pageSize: 50, webhookId: 'wh', status: 'FAILED' })).toEqualTypeOf<
      PagePromise<WebhookDelivery>
    >();
    expectTypeOf<Awaited<ReturnType<PartnerClient['webhooks']['deliveries']['list']>>>().toEqualTypeOf<Page<WebhookDelivery>>();
    expectTypeOf<WebhookDeliveryListParams>().toEqualTypeOf<{
      page?: number | undefined;
      pageSize?: number | undefined;
      webhookId?: string | undefined;
      status?: string | undefined;
    }>();
    // @ts-expect-error not a parameter of the delivery log
    void client.webhooks.deliveries.list({ limit: 10 });
  });
});

describe('endpoints known by name only require nothing', () => {
  it('every suggested field is optional, and other JSON fields are allowed', () => {
    void client.plans.purchase({});
    void client.plans.purchaseAsync({ productCode: 'B-5', quantity: 2 });
    void client.billing.topUp({});
    void client.billing.topUp({ amount: 5, reference: { po: 'PO-1' } });
    void client.portIns.checkEligibility({ operator: 'Optus' });
    void client.portIns.submit({ accountNumber: '123', pin: null });
    void client.teamMembers.create({ email: 'e@example.com', departments: [{ id: 1 }] });
    void client.esim.provision({});
    void client.sims.renewNumber('i', { areaCode: '02' });
  });

  it('suggested fields keep their types, and values JSON cannot carry do not compile', () => {
    // @ts-expect-error amount is a number
    void client.billing.topUp({ amount: '5' });
    // @ts-expect-error planId is a string
    void client.plans.purchase({ planId: 5 });
    // @ts-expect-error a bigint is not JSON
    void client.plans.purchase({ quantity: 2n });
    // @ts-expect-error a function is not JSON
    void client.portIns.submit({ callback: () => undefined });
  });
});

describe('authentication params are exported by name', () => {
  it('WebhookAuthenticationParams is the union of the four shapes', () => {
    const bearer: WebhookAuthenticationParams = { type: 'bearer', token: 't' };
    void bearer;
    // @ts-expect-error bearer without its token
    const missing: WebhookAuthenticationParams = { type: 'bearer' };
    void missing;
    expectTypeOf<WebhookAuthenticationParams['type']>().toEqualTypeOf<'none' | 'bearer' | 'basic' | 'api_key'>();
  });
});

describe('a dedupe claim is settled through its handle', () => {
  it('claim() resolves the claim or undefined; the deduplicator settles nothing by event', async () => {
    const { createDeduplicator } = await import('../../src/webhooks/index.js');
    const dedupe = createDeduplicator();
    const event = {} as import('../../src/index.js').WebhookEvent;
    expectTypeOf(dedupe.claim(event)).resolves.toEqualTypeOf<import('../../src/webhooks/index.js').EventClaim | undefined>();
    const claim = await dedupe.claim(event);
    if (claim) {
      expectTypeOf(claim.complete).returns.resolves.toBeVoid();
      expectTypeOf(claim.release).returns.resolves.toBeVoid();
    }
    // @ts-expect-error released through the claim, never by event
    void dedupe.release(event);
    // @ts-expect-error completed through the claim, never by event
    void dedupe.complete(event);
  });
});

describe("an adapter's onError", () => {
  it('receives a refusal or a failure of the receiver, each with what to branch on', async () => {
    const { createNodeHandler, WebhookSignatureError } = await import('../../src/webhooks/index.js');
    type Received = Parameters<NonNullable<import('../../src/webhooks/index.js').WebhookHandlerOptions['onError']>>[0];
    expectTypeOf<Received>().toEqualTypeOf<
      import('../../src/webhooks/index.js').WebhookSignatureError | import('../../src/webhooks/index.js').WebhookHandlerError
    >();
    createNodeHandler({
      secret: 's',
      onEvent: () => undefined,
      onError: (error) => {
        if (error instanceof WebhookSignatureError) void error.reason;
        else expectTypeOf(error.stage).toEqualTypeOf<'body' | 'verify' | 'claim' | 'handler' | 'complete' | 'release'>();
      },
    });
  });
});
