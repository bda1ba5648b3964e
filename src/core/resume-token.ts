/**
 * A resume token: what another process, or another request of a Worker, needs to pick up an
 * asynchronous operation where it was left — the operation, the transaction's id and the status
 * endpoint the server named. No credential and no result: the status poll needs no bearer
 * (spec part 4), and the result is read again when the wait ends.
 *
 * `v1.` then the base64url of the JSON array `[operation, transactionId, statusEndpoint]`, the
 * endpoint left out when it is the usual `/api/v3/transactions/{transactionId}`.
 */
import { RequestValidationError } from './errors.js';

const VERSION = 'v1';
/** Longest token read: a transaction id and an endpoint of a few hundred characters each, base64url. */
const MAX_TOKEN_LENGTH = 2048;
/** Longest transaction id or status endpoint a token may carry. */
const MAX_PART_LENGTH = 512;

/** What a resume token holds. */
export interface ResumePoint {
  operation: string;
  transactionId: string;
  statusEndpoint: string;
}

function usualEndpoint(transactionId: string): string {
  return `/api/v3/transactions/${encodeURIComponent(transactionId)}`;
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of utf8.encode(text)) binary += String.fromCharCode(byte);
  let encoded = btoa(binary);
  while (encoded.endsWith('=')) encoded = encoded.slice(0, -1);
  return encoded.replaceAll('+', '-').replaceAll('/', '_');
}

/** The text of a base64url string, or undefined when it is not one (or not UTF-8). */
function fromBase64Url(encoded: string): string | undefined {
  for (let index = 0; index < encoded.length; index++) {
    const code = encoded.charCodeAt(index);
    const valid =
      (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x5f;
    if (!valid) return undefined;
  }
  if (encoded.length % 4 === 1) return undefined;
  try {
    const binary = atob(encoded.replaceAll('-', '+').replaceAll('_', '/'));
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return utf8Strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The token of a handle. */
export function encodeResumeToken(point: ResumePoint): string {
  const parts = [point.operation, point.transactionId];
  if (point.statusEndpoint !== usualEndpoint(point.transactionId)) parts.push(point.statusEndpoint);
  return `${VERSION}.${toBase64Url(JSON.stringify(parts))}`;
}

function refused(why: string): RequestValidationError {
  return new RequestValidationError([{ path: 'token', message: why }], 'transactions.resume');
}

/** A part the token carries: text without control characters, of a sensible length. */
function isPart(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PART_LENGTH) return false;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/**
 * What a token holds, checked; a RequestValidationError saying why when it is not a token this
 * version reads (another version, not base64url JSON, a part missing or malformed).
 */
export function decodeResumeToken(token: unknown): ResumePoint {
  if (typeof token !== 'string') throw refused(`must be a string (got ${token === null ? 'null' : typeof token})`);
  if (token.length > MAX_TOKEN_LENGTH) throw refused(`is ${token.length} characters long, more than a resume token's ${MAX_TOKEN_LENGTH}`);
  const dot = token.indexOf('.');
  const version = dot < 0 ? '' : token.slice(0, dot);
  if (version !== VERSION) {
    throw refused(
      /^v\d+$/.test(version)
        ? `is a resume token of version ${version}, which this version of the SDK does not read (it reads ${VERSION})`
        : `is not a resume token: it must start with '${VERSION}.' (a handle's resumeToken, as it was)`,
    );
  }
  const text = fromBase64Url(token.slice(dot + 1));
  let parts: unknown;
  try {
    parts = text === undefined ? undefined : JSON.parse(text);
  } catch {
    parts = undefined;
  }
  if (!Array.isArray(parts) || parts.length < 2 || parts.length > 3) {
    throw refused('is malformed: its body is not what a resume token holds (it may have been cut or changed)');
  }
  const [operation, transactionId, statusEndpoint = typeof transactionId === 'string' ? usualEndpoint(transactionId) : undefined] =
    parts as unknown[];
  if (!isPart(operation) || !isPart(transactionId)) throw refused('is malformed: its operation or transaction id is missing or not text');
  if (!isPart(statusEndpoint) || !statusEndpoint.startsWith('/')) throw refused('is malformed: its status endpoint is not a path');
  return { operation, transactionId, statusEndpoint };
}
