import { describe, expectTypeOf, it } from 'vitest';
import type { SandboxContext, SandboxFaults, SandboxOptions } from '../../src/sandbox/index.js';

describe('SandboxFaults', () => {
  it('takes every fault shape as an optional rate, and the hang and throttle settings as numbers', () => {
    const faults: SandboxFaults = {
      resetRate: 0.03,
      errorRate: 0.03,
      resetAfterRate: 0.05,
      unavailableRate: 0.03,
      gatewayRate: 0.03,
      throttleRate: 0.03,
      throttleRetryAfterSeconds: 1,
      hangRate: 0.01,
      hangMs: 4_000,
      latencyMs: [20, 200],
      seed: 7,
    };
    expectTypeOf(faults).toExtend<SandboxOptions['faults']>();
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an empty faults object is the case under test
    expectTypeOf<{}>().toExtend<SandboxFaults>();
    // @ts-expect-error rates are numbers
    const wrong: SandboxFaults = { hangRate: '0.1' };
    void wrong;
  });

  it('resolves to every rate present on the context', () => {
    type Resolved = NonNullable<SandboxContext['options']['faults']>;
    expectTypeOf<Resolved['resetAfterRate']>().toEqualTypeOf<number>();
    expectTypeOf<Resolved['hangMs']>().toEqualTypeOf<number>();
    expectTypeOf<Resolved['latencyMs']>().toEqualTypeOf<[number, number]>();
  });
});
