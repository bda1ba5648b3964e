import { describe, expectTypeOf, it } from 'vitest';
import type { CallEndReason, ClientOptions, RateLimiter, RequestEndMessage, RequestErrorMessage, RequestStartMessage } from '../../src/index.js';
import type { REQUEST_END_CHANNEL, REQUEST_START_CHANNEL } from '../../src/index.js';

describe('diagnostics channel messages', () => {
  it('name the channels as literal types', () => {
    expectTypeOf<typeof REQUEST_START_CHANNEL>().toEqualTypeOf<'mobile-partner-sdk:request:start'>();
    expectTypeOf<typeof REQUEST_END_CHANNEL>().toEqualTypeOf<'mobile-partner-sdk:request:end'>();
  });

  it('carry the call and its outcome, typed', () => {
    expectTypeOf<RequestStartMessage['request']['kind']>().toEqualTypeOf<'api' | 'token'>();
    expectTypeOf<RequestStartMessage['request']['idempotencyKey']>().toEqualTypeOf<boolean>();
    expectTypeOf<RequestStartMessage['request']['rawPath']>().toEqualTypeOf<boolean>();
    expectTypeOf<RequestEndMessage['status']>().toEqualTypeOf<number>();
    expectTypeOf<RequestErrorMessage['status']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RequestErrorMessage['error']>().toEqualTypeOf<unknown>();
  });

  it('name why the call ended: `answered` on the end channel, any ending on the error channel', () => {
    expectTypeOf<RequestEndMessage['end']>().toEqualTypeOf<'answered'>();
    expectTypeOf<RequestErrorMessage['end']>().toEqualTypeOf<CallEndReason>();
    expectTypeOf<'client_cut'>().toExtend<CallEndReason>();
    // @ts-expect-error an ending the client does not name
    expectTypeOf<'timed_out'>().toExtend<CallEndReason>();
  });
});

describe('propagateTraceContext', () => {
  it('is an optional boolean client option', () => {
    expectTypeOf<ClientOptions['propagateTraceContext']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf({ propagateTraceContext: true }).toExtend<ClientOptions>();
    // @ts-expect-error a string is not a boolean
    const quoted: ClientOptions = { propagateTraceContext: 'true' };
    void quoted;
  });
});

describe('a RateLimiter of your own', () => {
  it('is accepted by the rateLimit option; giveBack is optional', () => {
    const limiter: RateLimiter = { acquire: () => undefined, release: () => {}, pause: () => {}, close: () => {} };
    expectTypeOf({ rateLimit: limiter }).toExtend<ClientOptions>();
    // @ts-expect-error a limiter needs all four methods
    const partial: RateLimiter = { acquire: () => undefined, release: () => {} };
    void partial;
  });
});
