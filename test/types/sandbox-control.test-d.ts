import { describe, expectTypeOf, it } from 'vitest';
import type {
  ForceRule,
  Sandbox,
  SandboxAccount,
  SandboxHandle,
  SandboxTime,
  SmsEventResult,
  VoiceEventResult,
  VoiceQualityTestResult,
} from '../../src/sandbox/index.js';

declare const sandbox: SandboxHandle;
declare const inProcess: Sandbox;

describe('sandbox control methods are typed', () => {
  it('names every control route as a method with typed input and result', () => {
    expectTypeOf(sandbox.force({ path: '/api/v1.1/sims', status: 503 })).toEqualTypeOf<ForceRule>();
    expectTypeOf(sandbox.clearForced()).toEqualTypeOf<void>();
    expectTypeOf(sandbox.advanceTime(1000)).toEqualTypeOf<SandboxTime>();
    expectTypeOf(sandbox.revokeTokens()).toEqualTypeOf<number>();
    expectTypeOf(sandbox.sendSmsEvent({ operator: 'Telstra', network: 'Telstra 4G' })).toEqualTypeOf<SmsEventResult>();
    expectTypeOf(sandbox.sendVoiceEvent({ operator: 'Telstra', network: 'Telstra 4G', kind: 'missed' })).toEqualTypeOf<VoiceEventResult>();
    expectTypeOf(inProcess.runVoiceQualityTest({ iccid: '89…' })).toEqualTypeOf<VoiceQualityTestResult>();
    expectTypeOf(inProcess.setAccount({ apiAccess: false })).toEqualTypeOf<SandboxAccount>();
    expectTypeOf(inProcess.reset()).toEqualTypeOf<void>();
  });

  it('refuses misspelt members and wrong types at compile time', () => {
    // @ts-expect-error stauts is not a rule member
    sandbox.force({ path: '/api/v1.1/sims', stauts: 503 });
    // @ts-expect-error kind is one of incoming, completed, missed
    sandbox.sendVoiceEvent({ operator: 'Telstra', network: 'Telstra 4G', kind: 'dropped' });
    // @ts-expect-error network is required
    sandbox.sendSmsEvent({ operator: 'Telstra' });
    // @ts-expect-error advanceTime takes milliseconds as a number
    sandbox.advanceTime('1000');
    // @ts-expect-error apiAcess is not an account member
    inProcess.setAccount({ apiAcess: false });
  });
});
