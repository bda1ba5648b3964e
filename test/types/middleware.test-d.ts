import { describe, expectTypeOf, it } from 'vitest';
import type {
  EsimProvisioningResult,
  Middleware,
  MiddlewareContext,
  MiddlewareNext,
  MiddlewareRequest,
  PartnerClient,
  TransactionHandle,
} from '../../src/index.js';

declare const client: PartnerClient;

describe('middleware', () => {
  it('is (request, next, context) => Promise<Response>, on the client and per call', () => {
    expectTypeOf<Parameters<Middleware>>().toEqualTypeOf<[MiddlewareRequest, MiddlewareNext, MiddlewareContext]>();
    expectTypeOf<ReturnType<Middleware>>().toEqualTypeOf<Promise<Response>>();
    expectTypeOf<MiddlewareRequest['headers']>().toEqualTypeOf<Headers>();
    expectTypeOf<MiddlewareRequest['body']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<MiddlewareContext['attempt']>().toEqualTypeOf<number>();
    const tenant: Middleware = async (request, next) => {
      request.headers.set('x-tenant', 'acme');
      return next(request);
    };
    void client.sims.list({}, { middleware: [tenant] });
    // @ts-expect-error a middleware answers a Response, not the data
    const wrong: Middleware = async () => ({ data: [] });
    void wrong;
  });

  it('cannot change what the context reports', () => {
    const peek: Middleware = async (request, next, context) => {
      // @ts-expect-error the key is the client's
      context.idempotencyKey = 'mine';
      // @ts-expect-error the attempt number is the client's
      context.attempt = 1;
      return next(request);
    };
    void peek;
  });
});

describe('client.transactions.resume', () => {
  it("is typed as the named operation's handle, and unknown without a name", () => {
    expectTypeOf(client.transactions.resume('v1.x', 'esim.provision')).toEqualTypeOf<TransactionHandle<EsimProvisioningResult>>();
    expectTypeOf(client.transactions.resume('v1.x')).toEqualTypeOf<TransactionHandle<unknown>>();
    expectTypeOf<TransactionHandle['resumeToken']>().toEqualTypeOf<string>();
    // @ts-expect-error not an asynchronous operation
    client.transactions.resume('v1.x', 'sims.list');
  });
});
