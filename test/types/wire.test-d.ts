import { describe, expectTypeOf, it } from 'vitest';
import { type ClientErrorCode, type ClientOptions, PartnerError, RedirectError, ResponseTooLargeError } from '../../src/index.js';

describe('client options of the wire', () => {
  it('takes maxResponseBytes and maxServerWaitMs as numbers', () => {
    expectTypeOf<ClientOptions['maxResponseBytes']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ClientOptions['maxServerWaitMs']>().toEqualTypeOf<number | undefined>();
    // @ts-expect-error a string is not a byte count
    const wrong: ClientOptions = { maxResponseBytes: '8MiB' };
    void wrong;
  });
});

describe('errors of the wire', () => {
  it('RedirectError names the status and the target origin only', () => {
    expectTypeOf<RedirectError>().toMatchTypeOf<PartnerError>();
    expectTypeOf<RedirectError['status']>().toEqualTypeOf<number>();
    expectTypeOf<RedirectError['targetOrigin']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<RedirectError['code']>().toEqualTypeOf<ClientErrorCode>();
  });

  it('ResponseTooLargeError says which part was too large', () => {
    expectTypeOf<ResponseTooLargeError>().toMatchTypeOf<PartnerError>();
    expectTypeOf<ResponseTooLargeError['part']>().toEqualTypeOf<'body' | 'headers'>();
    expectTypeOf<ResponseTooLargeError['limitBytes']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ResponseTooLargeError['status']>().toEqualTypeOf<number | undefined>();
  });

  it('adds the two codes to ClientErrorCode', () => {
    expectTypeOf<'REDIRECT_NOT_FOLLOWED'>().toMatchTypeOf<ClientErrorCode>();
    expectTypeOf<'RESPONSE_TOO_LARGE'>().toMatchTypeOf<ClientErrorCode>();
  });
});
