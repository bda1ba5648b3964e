import { describe, expectTypeOf, it } from 'vitest';
import type * as nodeWire from '../../src/core/default-wire.js';
import type * as webWire from '../../src/core/default-wire.web.js';
import type * as nodeHmac from '../../src/webhooks/hmac.js';
import type * as webHmac from '../../src/webhooks/hmac.web.js';
import type * as nodeOpenTelemetry from '../../src/core/opentelemetry.js';
import type * as webOpenTelemetry from '../../src/core/opentelemetry.web.js';
import type * as nodeObjects from '../../src/core/compiled-objects.js';
import type * as webObjects from '../../src/core/compiled-objects.web.js';

// The web build swaps each module for its `.web.ts` twin (tsup.config.ts) while both builds share
// one set of declarations: a twin must export exactly what its original does, with the same types.
describe('the web build’s twins', () => {
  it('default-wire.web.ts exports what default-wire.ts does', () => {
    expectTypeOf<typeof webWire>().toEqualTypeOf<typeof nodeWire>();
  });

  it('hmac.web.ts exports what hmac.ts does', () => {
    expectTypeOf<typeof webHmac>().toEqualTypeOf<typeof nodeHmac>();
  });

  it('opentelemetry.web.ts exports what opentelemetry.ts does', () => {
    expectTypeOf<typeof webOpenTelemetry>().toEqualTypeOf<typeof nodeOpenTelemetry>();
  });

  it('compiled-objects.web.ts exports what compiled-objects.ts does', () => {
    expectTypeOf<typeof webObjects>().toEqualTypeOf<typeof nodeObjects>();
  });
});
