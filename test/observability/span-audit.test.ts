/** The span audit the end-to-end suite runs under (test/helpers/span-audit.ts) finds what it is there to find. */
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Attributes, Span } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { spanFindings } from '../helpers/span-audit.js';

function span(name: string, attributes: Attributes, build?: (span: Span) => void): ReadableSpan {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('audit');
  const made = tracer.startSpan(name, { attributes });
  build?.(made);
  made.end();
  return exporter.getFinishedSpans()[0] as ReadableSpan;
}

const call = { 'http.request.method': 'GET', 'url.template': '/api/v1.1/sims/{iccid}', 'server.address': '127.0.0.1', 'server.port': 8080 };

describe('the span audit', () => {
  it('passes a call span as the client makes it', () => {
    expect(spanFindings(span('GET /api/v1.1/sims/{iccid}', { ...call, 'partner.attempts': 1, 'error.type': '404' }), [])).toEqual([]);
    expect(
      spanFindings(span('wait POST /api/v3/port-in', { 'partner.operation': 'POST /api/v3/port-in', 'partner.transaction.polls': 3 }), []),
    ).toEqual([]);
  });

  it.each([
    ['a concrete path in the name', span('GET /api/v1.1/sims/8961234567890123456', call)],
    ['a concrete path as the template', span('GET /api/v1.1/sims/{iccid}', { ...call, 'url.template': '/api/v1.1/sims/8961234567890123456' })],
    ['an attribute it does not know', span('GET /api/v1.1/sims/{iccid}', { ...call, 'url.full': 'http://127.0.0.1/api/v1.1/sims' })],
    ['a message as the error type', span('GET /api/v1.1/sims/{iccid}', { ...call, 'error.type': 'SIM 8961234567890123456 not found' })],
    ['a code that is not one', span('GET /api/v1.1/sims/{iccid}', { ...call, 'partner.error.code': 'ops@acme.example' })],
    ['an event', span('GET /api/v1.1/sims/{iccid}', call, (made) => made.addEvent('exception'))],
    ['a status message', span('GET /api/v1.1/sims/{iccid}', call, (made) => made.setStatus({ code: 2, message: 'boom' }))],
  ])('finds %s', (_what, audited) => {
    expect(spanFindings(audited, [])).not.toEqual([]);
  });

  it('finds an account value anywhere, even where a form would let it through', () => {
    expect(spanFindings(span('GET /api/v1.1/sims/{iccid}', { ...call, 'partner.error.code': 'SECRET_KEY_1' }), ['SECRET_KEY_1'])).toEqual([
      'GET /api/v1.1/sims/{iccid}: holds an account value',
    ]);
  });
});
