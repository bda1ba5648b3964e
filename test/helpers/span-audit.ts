/**
 * Every span a test file's calls produce, held to what spans may say: each attribute a known
 * key whose value fits that key's grammar (a route template, a status, a count, an error class),
 * names of the known forms, no events, no status message; and none of the account's values
 * anywhere (key, secret, ICCIDs, phone numbers, emails, IMEIs, transaction and order ids). The
 * grammar is the guard: an identifier or a credential fits none of them. Registered for a file
 * (a real OpenTelemetry SDK, as a partner's would be), checked after each of its tests; the
 * attributes of the file's metric data points are held to the same forms at its end.
 */
import type { Attributes } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, expect } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { CALL_ENDS } from '../../src/core/call-end.js';
import { useTelemetry } from './otel.js';

const METHOD = '(?:GET|POST|PUT|PATCH|DELETE)';
/** A path template of the spec: literal segments and `{name}` placeholders only. */
const TEMPLATE = String.raw`/api/v\d+(?:\.\d+)?(?:/(?:[a-z][a-z-]*|\{[a-zA-Z]+\}))*`;
const ERROR_TYPE = /^(?:(?:[A-Z][A-Za-z]*)?Error|[1-5]\d\d|_OTHER)$/;
const CODE = /^[A-Z][A-Z0-9_]*$/;

type Grammar = RegExp | 'number' | 'boolean' | { each: RegExp };

const ATTRIBUTES: Record<string, Grammar> = {
  'http.request.method': new RegExp(`^${METHOD}$`),
  'http.response.status_code': 'number',
  'http.request.resend_count': 'number',
  'server.address': /^(?:127\.0\.0\.1|localhost|::1)$/,
  'server.port': 'number',
  'url.scheme': /^https?$/,
  'url.template': new RegExp(`^${TEMPLATE}$`),
  'error.type': ERROR_TYPE,
  'partner.attempts': 'number',
  'partner.call.end': new RegExp(`^(?:${Object.keys(CALL_ENDS).join('|')})$`),
  'partner.retry.reasons': { each: ERROR_TYPE },
  'partner.rate_limit.wait_ms': 'number',
  'partner.idempotency_key.present': 'boolean',
  'partner.idempotency.replayed': 'boolean',
  'partner.response.validation': /^(?:passed|skipped|failed)$/,
  'partner.error.code': CODE,
  'partner.wait.reason': /^(?:rate-limit|retry|in-flight-original)$/,
  'partner.wait.planned_ms': 'number',
  'partner.operation': new RegExp(`^${METHOD} ${TEMPLATE}$`),
  'partner.transaction.polls': 'number',
  'partner.transaction.status': CODE,
  'partner.retry.reason': ERROR_TYPE,
  'partner.status_class': /^(?:[1-5]xx|none)$/,
};

const NAME = new RegExp(
  `^(?:${METHOD} ${TEMPLATE}|${METHOD}|attempt \\d+|wait (?:retry|rate-limit|in-flight-original|transaction)|wait ${METHOD} ${TEMPLATE})$`,
);

function fits(grammar: Grammar, value: unknown): boolean {
  if (grammar === 'number') return typeof value === 'number' && Number.isFinite(value);
  if (grammar === 'boolean') return typeof value === 'boolean';
  if (grammar instanceof RegExp) return typeof value === 'string' && grammar.test(value);
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && grammar.each.test(item));
}

/** The attributes of a span or a metric data point (`owner` names it) that are unknown or not of their form. */
function attributeFindings(owner: string, attributes: Attributes): string[] {
  return Object.entries(attributes).flatMap(([key, value]) => {
    const grammar = ATTRIBUTES[key];
    if (grammar === undefined) return [`${owner}: unknown attribute ${key}`];
    return fits(grammar, value) ? [] : [`${owner}: ${key} = ${JSON.stringify(value)}`];
  });
}

/** What of one span breaks the rules, as readable lines. */
export function spanFindings(span: ReadableSpan, forbidden: readonly string[]): string[] {
  const findings: string[] = [];
  if (!NAME.test(span.name)) findings.push(`name ${JSON.stringify(span.name)}`);
  findings.push(...attributeFindings(span.name, span.attributes));
  if (span.events.length > 0) findings.push(`${span.name}: events ${span.events.map((event) => event.name).join(', ')}`);
  if (span.status.message) findings.push(`${span.name}: status message`);
  const text = JSON.stringify([span.name, span.attributes, span.events, span.links, span.status]);
  for (const value of forbidden) if (text.includes(value)) findings.push(`${span.name}: holds an account value`);
  return findings;
}

/**
 * The account's values no span may hold, as the sandbox has them now. Read from the sandbox's
 * state: the audit needs every value after each test, and users, devices, orders and old
 * transactions are known to the API by name only (spec part 4), so no public list holds them all.
 */
function accountValues(sandbox: SandboxHandle): string[] {
  const { state } = sandbox.ctx;
  return [
    sandbox.key,
    sandbox.secret,
    ...[...state.sims.values()].flatMap((sim) => [sim.iccid, sim.phoneNumber]),
    ...state.users.keys(),
    ...state.teamMembers.keys(),
    ...state.devices.keys(),
    ...state.transactions.keys(),
    ...state.orders.keys(),
  ];
}

/** Registers the SDK for the file (see otel.ts) and audits the spans of each test; `sandbox()` is the file's sandbox. */
export function useSpanAudit(sandbox: () => SandboxHandle | undefined): void {
  const telemetry = useTelemetry();
  let seen = 0;
  afterEach(() => {
    const { spans } = telemetry();
    const finished = spans.getFinishedSpans();
    seen += finished.length;
    spans.reset();
    const current = sandbox();
    if (current === undefined) return;
    const forbidden = accountValues(current);
    expect(finished.flatMap((span) => spanFindings(span, forbidden))).toEqual([]);
  });
  // Registered after useTelemetry's, so it runs before the providers are shut down.
  afterAll(async () => {
    // The metrics' attributes, every data point of the file: the same forms as the spans'.
    const points = (await telemetry().collect()).scopeMetrics.flatMap((scope) =>
      scope.metrics.flatMap((metric) => metric.dataPoints.map((point) => ({ metric: metric.descriptor.name, attributes: point.attributes }))),
    );
    expect(points.length).toBeGreaterThan(0);
    expect(points.flatMap((point) => attributeFindings(point.metric, point.attributes))).toEqual([]);
    // A file whose calls made no span at all would audit nothing: the audit itself would be broken.
    expect(seen).toBeGreaterThan(0);
  });
}
