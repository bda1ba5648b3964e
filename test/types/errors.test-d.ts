import { describe, expectTypeOf, it } from 'vitest';
import type { ApiError, ConfigurationError, ConnectionError, TimeoutError } from '../../src/index.js';

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
