/** Names of the delivery headers (spec part 6), lower-cased as Node presents them. */
export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const EVENT_HEADER = 'x-service-event';
export const DELIVERY_HEADER = 'x-service-delivery';

/** A WHATWG `Headers` or anything with the same `get`. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** Node's `IncomingHttpHeaders`, or any plain record of header names to values. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

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
