/**
 * Every type exported by `mobile-partner-sdk` and `mobile-partner-sdk/webhooks` is enumerated by
 * the type checker and sorted: an answer or event type (what the server or a delivery gives the
 * caller) must be exact, with no `[key: string]: unknown` anywhere inside it, and must have its
 * misspelt-field line in answer-typos.test-d.ts. A new export fails here until it is sorted.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const ENTRIES = ['src/index.ts', 'src/webhooks/index.ts'];

/** What the server or a delivery hands the caller. */
const ANSWERS = new Set([
  'AsyncAcceptance',
  'CompletedTransaction',
  'CreditBalance',
  'DeviceAssignment',
  'EsimActivation',
  'EsimProvisioningResult',
  'Order',
  'Plan',
  'PlanPurchase',
  'PlanPurchaseResult',
  'PortIn',
  'PortInEligibility',
  'PortInResult',
  'RenewNumberResult',
  'Sim',
  'SimGroup',
  'SmsSendResult',
  'Subscription',
  'SubscriptionCancellation',
  'SubscriptionDetail',
  'TeamMember',
  'TeamMemberCreated',
  'TeamMemberDetail',
  'TokenResponse',
  'TopUpResult',
  'Transaction',
  'TransactionFields',
  'User',
  'UserGroupDeletion',
  'VoiceQualityWebhook',
  'WebhookDeletion',
  'WebhookDelivery',
  'WebhookRegistration',
  'WebhookRegistrationWithSecret',
  'WebhookTestResult',
  'PageMeta',
  'ResponseInfo',
  'RateLimitInfo',
  'DeliveryInfo',
  'SmsEvent',
  'SmsEventData',
  'UnknownEvent',
  'VoiceEvent',
  'VoiceEventData',
  'VoiceTestCompletedData',
  'VoiceTestCompletedEvent',
  'WebhookEvent',
  'WebhookTestEvent',
  'WebhookTestEventData',
  'VoiceHandshake',
]);

/**
 * Everything else exported: what the caller writes (options, parameters, bodies, secrets), type
 * building blocks, and unions of names. Request bodies of endpoints known by name only keep an
 * index signature on purpose: any field with a JSON value is sent as given.
 */
const NOT_ANSWERS = new Set([
  'Middleware',
  'MiddlewareContext',
  'MiddlewareNext',
  'MiddlewareRequest',
  'AsyncOperationName',
  'AsyncOperationResults',
  'RawRequest',
  'ClientOptions',
  'CloseOptions',
  'Logger',
  'LogLevel',
  'RateLimitOptions',
  'WindowLimit',
  'RateLimiter',
  'Admission',
  'LimiterContext',
  'DiagnosticsRequest',
  'RequestEndMessage',
  'RequestErrorMessage',
  'RequestStartMessage',
  'CallEndReason',
  'RequestOptions',
  'HttpMethod',
  'Query',
  'WaitOptions',
  'OpenEnum',
  'DeviceAssignParams',
  'EsimProvisionParams',
  'PaginationParams',
  'PendingResult',
  'PlanPurchaseParams',
  'PortInEligibilityParams',
  'PortInListParams',
  'PortInSubmitParams',
  'RenewNumberParams',
  'SimListParams',
  'SmsSendParams',
  'SubscriptionListParams',
  'TeamMemberCreateParams',
  'TeamMemberListParams',
  'TopUpParams',
  'UserListParams',
  'VoiceQualityWebhookListParams',
  'WebhookApiKeyAuthentication',
  'WebhookAuthenticationParams',
  'WebhookBasicAuthentication',
  'WebhookBearerAuthentication',
  'WebhookNoAuthentication',
  'WebhookCreateParams',
  'WebhookDeliveryListParams',
  'WebhookListParams',
  'WebhookUpdateParams',
  'AsyncWebhookSecretSource',
  'VerifyOptions',
  'VerifiedSignature',
  'WebhookSecret',
  'WebhookSecretSource',
  'SignOptions',
  'ConstructEventOptions',
  // A JSON object as such (used by no event since they are exact), kept for callers who name it.
  'JsonObject',
  'WebhookEventBase',
  'WebhookEventType',
  'ApiResult',
  'ClientErrorCode',
  'ErrorCode',
  'ApiErrorInit',
  'ValidationIssue',
  'WebhookSignatureFailureReason',
  'WebhookHandlerStage',
  'ExpressLikeRequest',
  'VoiceStreamOptions',
  'VoiceStreamServer',
  'VoiceStreamServerOptions',
  'VoiceCallOptions',
  'VoiceSocket',
  'VoiceSocketData',
  'VoiceStreamFrame',
  'WavOptions',
  'DeliveryHeaders',
  'HeaderRecord',
  'HeadersLike',
  'RawBody',
  'WebhookHandlerOptions',
  'DedupeClaim',
  'DedupeOptions',
  'DedupeStore',
  'Deduplicator',
  'EventClaim',
  'MemoryDedupeStoreOptions',
]);

/** Members that are maps by nature (any header name is a key), not records of fields. */
const MAPS = new Set(['ResponseInfo.headers']);

function program(): ts.Program {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => readFileSync(path, 'utf8'));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return ts.createProgram(
    ENTRIES.map((entry) => join(root, entry)),
    { ...options, noEmit: true },
  );
}

/** The exported types (interfaces and aliases) of each entry, by name. */
function exportedTypes(checker: ts.TypeChecker, compiled: ts.Program): Map<string, ts.Type> {
  const types = new Map<string, ts.Type>();
  for (const entry of ENTRIES) {
    const source = compiled.getSourceFile(join(root, entry));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry} not compiled`);
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue;
      types.set(exported.name, checker.getDeclaredTypeOfSymbol(symbol));
    }
  }
  return types;
}

/** Paths inside `type` (fields, array items, union members, type arguments) whose object has a string index signature. */
function looseParts(checker: ts.TypeChecker, type: ts.Type, path: string, seen = new Set<ts.Type>()): string[] {
  if (seen.has(type)) return [];
  seen.add(type);
  if (type.isUnion() || type.isIntersection()) return type.types.flatMap((member) => looseParts(checker, member, path, seen));
  if (!(type.flags & ts.TypeFlags.Object)) return [];
  const found: string[] = [];
  if (checker.getIndexInfoOfType(type, ts.IndexKind.String)) found.push(path);
  if (checker.isArrayType(type)) {
    for (const item of checker.getTypeArguments(type as ts.TypeReference)) found.push(...looseParts(checker, item, `${path}[]`, seen));
    return found;
  }
  if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0) return found;
  for (const property of checker.getPropertiesOfType(type)) {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    if (!declaration) continue;
    found.push(...looseParts(checker, checker.getTypeOfSymbolAtLocation(property, declaration), `${path}.${property.name}`, seen));
  }
  return found;
}

describe('exported answer and event types', () => {
  const compiled = program();
  const checker = compiled.getTypeChecker();
  const types = exportedTypes(checker, compiled);

  it('each exported type is sorted into answers or not', () => {
    const unsorted = [...types.keys()].filter((name) => !ANSWERS.has(name) && !NOT_ANSWERS.has(name));
    expect(unsorted).toEqual([]);
    expect([...ANSWERS, ...NOT_ANSWERS].filter((name) => !types.has(name))).toEqual([]);
  });

  it('no answer or event type has an index signature, at any depth', () => {
    const loose = [...ANSWERS]
      .flatMap((name) => {
        const type = types.get(name);
        return type ? looseParts(checker, type, name) : [];
      })
      .filter((path) => !MAPS.has(path));
    expect(loose).toEqual([]);
  });

  it('each answer and event type has its misspelt-field line in answer-typos.test-d.ts', () => {
    const typos = readFileSync(join(here, 'answer-typos.test-d.ts'), 'utf8');
    const covered = new Set([...typos.matchAll(/@ts-expect-error (\w+)/g)].map((match) => match[1]));
    expect([...ANSWERS].filter((name) => !covered.has(name))).toEqual([]);
  });
}, 120_000);
