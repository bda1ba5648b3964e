import { describe, expectTypeOf, it } from 'vitest';
import type * as SandboxEntry from '../../src/sandbox/index.js';
import type { SandboxContext, SandboxRequestContext, SandboxStatusCode } from '../../src/sandbox/index.js';
import type { VoiceCall, VoiceStreamReceiver } from '../../src/webhooks/index.js';

describe('public types that name no optional or bundled package', () => {
  it('SandboxContext answer helpers take a structural request context and a status code of our own', () => {
    expectTypeOf<Parameters<SandboxContext['fail']>[0]>().toEqualTypeOf<SandboxRequestContext>();
    expectTypeOf<Parameters<SandboxContext['fail']>[1]>().toEqualTypeOf<SandboxStatusCode>();
    expectTypeOf<404>().toMatchTypeOf<SandboxStatusCode>();
    // Contentless statuses cannot carry the error envelope.
    expectTypeOf<204>().not.toMatchTypeOf<SandboxStatusCode>();
    expectTypeOf<{ req: { raw: Request } }>().toMatchTypeOf<SandboxRequestContext>();
  });

  it('no longer exports SandboxPlugin, whose app parameter was a Hono app', () => {
    // @ts-expect-error SandboxPlugin is internal to the sandbox
    type Plugin = SandboxEntry.SandboxPlugin;
    expectTypeOf<Plugin>().toBeAny();
  });

  it('the voice-stream receiver reports a missing optional peer through ready()', () => {
    expectTypeOf<VoiceStreamReceiver['ready']>().returns.resolves.toEqualTypeOf<VoiceStreamReceiver>();
    expectTypeOf<ConstructorParameters<typeof VoiceCall>[0]>().toHaveProperty('terminate');
  });
});
