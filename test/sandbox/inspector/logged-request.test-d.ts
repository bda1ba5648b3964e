import { describe, expectTypeOf, it } from 'vitest';
import type { LoggedRequest, SandboxHandle } from '../../../src/sandbox/index.js';

describe('LoggedRequest', () => {
  it('carries what the inspector shows, each field nullable while the request runs', () => {
    expectTypeOf<SandboxHandle['requests']>().returns.toEqualTypeOf<LoggedRequest[]>();
    expectTypeOf<LoggedRequest['id']>().toEqualTypeOf<number>();
    expectTypeOf<LoggedRequest['status']>().toEqualTypeOf<number | null>();
    expectTypeOf<LoggedRequest['latencyMs']>().toEqualTypeOf<number | null>();
    expectTypeOf<NonNullable<LoggedRequest['rateLimit']>>().toEqualTypeOf<{
      window: string | null;
      limit: number | null;
      remaining: number | null;
      resetSeconds: number | null;
      retryAfterSeconds: number | null;
    }>();
    expectTypeOf<LoggedRequest['idempotency']>().toEqualTypeOf<{ key: string; replayed: boolean } | null>();
    expectTypeOf<NonNullable<LoggedRequest['forced']>['ruleId']>().toEqualTypeOf<string>();
    expectTypeOf<LoggedRequest['response']>().toEqualTypeOf<{ headers: Record<string, string>; body: unknown } | null>();
  });
});
