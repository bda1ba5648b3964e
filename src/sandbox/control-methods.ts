/**
 * The control API in types: one in-process method per /_sandbox/ route, on the object that
 * createSandbox() and startSandbox() return. Each checks its input with the same schema as the
 * route and does the same thing; where the route answers 400, the method throws a TypeError (a
 * RangeError for a number out of bounds) naming the field and, for unknown members, the allowed ones.
 */
import type { SandboxContext } from './context.js';
import { inProcessError, parseInProcess } from './control-body.js';
import {
  accountControlSchema,
  applyAccount,
  applyTime,
  checkForceRule,
  revokeControlSchema,
  timeControlSchema,
  timeView,
  type SandboxTime,
} from './control.js';
import type { ForceRegistry, ForceRule, ForceRuleInput } from './middleware/force.js';
import type { TokenStore } from './middleware/tokens.js';
import type { SandboxAccount } from './options.js';
import {
  smsEventControlSchema,
  voiceEventControlSchema,
  type SmsEventInput,
  type SmsEventResult,
  type VoiceEventInput,
  type VoiceEventResult,
} from './webhooks/event-routes.js';
import type { WebhookControls } from './webhooks/index.js';
import { voiceQualityTestSchema, type VoiceQualityTestInput, type VoiceQualityTestResult } from './webhooks/voice-quality-routes.js';

export type {
  ForceRule,
  ForceRuleInput,
  SandboxTime,
  SmsEventInput,
  SmsEventResult,
  VoiceEventInput,
  VoiceEventResult,
  VoiceQualityTestInput,
  VoiceQualityTestResult,
};

/**
 * The control API as methods of the sandbox object: the same checks and effects as the
 * `/_sandbox/` routes, without HTTP. A bad input throws a `TypeError` (a `RangeError` for a number
 * out of bounds) naming the field.
 */
export interface SandboxControlMethods {
  /** POST /_sandbox/force: answers the next matching calls as the rule says. */
  force(rule: ForceRuleInput): ForceRule;
  /** DELETE /_sandbox/force: drops every pending rule. */
  clearForced(): void;
  /** POST /_sandbox/time { advanceMs }: jumps the sandbox clock; every timer now due fires. */
  advanceTime(ms: number): SandboxTime;
  /** POST /_sandbox/tokens/revoke: one token, or every token when none is given; returns how many were live. */
  revokeTokens(token?: string): number;
  /** POST /_sandbox/events/sms: an inbound SMS, delivered to the subscribed registrations. */
  sendSmsEvent(event: SmsEventInput): SmsEventResult;
  /** POST /_sandbox/events/voice: an inbound voice event, delivered to the subscribed registrations. */
  sendVoiceEvent(event: VoiceEventInput): VoiceEventResult;
  /** POST /_sandbox/voice-quality/tests: a line calls the test number; throws a RangeError for an ICCID not on the account. */
  runVoiceQualityTest(input: VoiceQualityTestInput): VoiceQualityTestResult;
  /** POST /_sandbox/account: changes the seedable account state; returns it. */
  setAccount(patch: Partial<SandboxAccount>): SandboxAccount;
}

export interface ControlMethodDeps {
  force: ForceRegistry;
  tokens: TokenStore;
  webhooks: WebhookControls;
}

export function createControlMethods(ctx: SandboxContext, deps: ControlMethodDeps): SandboxControlMethods {
  return {
    force(rule) {
      const checked = checkForceRule(rule === undefined ? {} : rule);
      if (Array.isArray(checked))
        throw inProcessError(
          'force',
          checked.map((issue) => issue.replace(/^body:/, 'rule:')),
        );
      return deps.force.add(checked);
    },
    clearForced() {
      deps.force.clear();
    },
    advanceTime(ms) {
      const input = parseInProcess('advanceTime', timeControlSchema, { advanceMs: ms });
      const issues = applyTime(ctx, input);
      if (issues.length > 0) throw inProcessError('advanceTime', issues, true);
      return timeView(ctx);
    },
    revokeTokens(token) {
      const input = parseInProcess('revokeTokens', revokeControlSchema, token === undefined ? {} : { token });
      return deps.tokens.revoke(input.token);
    },
    sendSmsEvent(event) {
      return deps.webhooks.sendSmsEvent(parseInProcess('sendSmsEvent', smsEventControlSchema, event, 'event'));
    },
    sendVoiceEvent(event) {
      return deps.webhooks.sendVoiceEvent(parseInProcess('sendVoiceEvent', voiceEventControlSchema, event, 'event'));
    },
    runVoiceQualityTest(input) {
      const result = deps.webhooks.runVoiceQualityTest(parseInProcess('runVoiceQualityTest', voiceQualityTestSchema, input));
      if (!result) throw new RangeError('runVoiceQualityTest: iccid is not a SIM of the account');
      return result;
    },
    setAccount(patch) {
      return applyAccount(ctx, parseInProcess('setAccount', accountControlSchema, patch, 'patch'));
    },
  };
}
