/** `X-Service-Signature` (spec part 6): `t=<unix seconds>,v1=<hex HMAC-SHA256>`, lower-cased as Node presents it. */
export const SIGNATURE_HEADER = 'x-service-signature';
/** `X-Service-Timestamp`: the delivery's unix seconds, as signed. */
export const TIMESTAMP_HEADER = 'x-service-timestamp';
/** `X-Service-Event`: the event name; not covered by the signature. */
export const EVENT_HEADER = 'x-service-event';
/** `X-Service-Delivery`: the delivery id (voice-quality deliveries). */
export const DELIVERY_HEADER = 'x-service-delivery';

/** A WHATWG `Headers` or anything with the same `get`. */
export interface HeadersLike {
  /** The header's value, or null when absent. */
  get(name: string): string | null;
}

/** Node's `IncomingHttpHeaders`, or any plain record of header names to values. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A delivery's headers in either shape: WHATWG `Headers` or Node's record. */
export type DeliveryHeaders = HeadersLike | HeaderRecord;

function isHeadersLike(headers: unknown): headers is HeadersLike {
  return typeof (headers as { get?: unknown }).get === 'function';
}

/**
 * One header from either shape, whatever the case of its name. Repeated values (Node's
 * string[]) are joined with ", " as HTTP does.
 */
export function readHeader(headers: DeliveryHeaders | null | undefined, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  if (isHeadersLike(headers)) return headers.get(name) ?? undefined;
  let value = headers[name];
  if (value === undefined) {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === name) {
        value = headers[key];
        break;
      }
    }
  }
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').join(', ') || undefined;
  return undefined;
}
