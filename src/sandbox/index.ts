/** mobile-partner-sdk/sandbox: a stateful local emulator of the partner API. */
export { createSandbox } from './handler.js';
export type { HandleInit, Sandbox } from './handler.js';
export { startSandbox } from './server.js';
export type { SandboxHandle } from './server.js';
export type { SandboxAccount, SandboxCredentials, SandboxFaults, SandboxLimits, SandboxOptions, StartSandboxOptions } from './options.js';
export type { SandboxFixtures } from './state/fixtures.js';
export type {
  ForceRule,
  ForceRuleInput,
  SandboxControlMethods,
  SandboxTime,
  SmsEventInput,
  SmsEventResult,
  VoiceEventInput,
  VoiceEventResult,
  VoiceQualityTestInput,
  VoiceQualityTestResult,
} from './control-methods.js';
export type { LoggedRequest } from './middleware/request-log.js';
export type { KeyTier, SandboxContext, SandboxRequestContext, SandboxStatusCode } from './context.js';
