/**
 * The sandbox's reading of the email rule of docs/shapes.md ("Formats"): RFC 6531 addresses,
 * internationalized ones included. Written apart from the client's check on purpose: the contract
 * test feeds both the same addresses, and a slip in either is a disagreement there.
 */

const encoder = new TextEncoder();
const octets = (text: string): number => encoder.encode(text).length;

/** ASCII characters an unquoted local part may hold besides letters and digits (RFC 5322 atext). */
const ATEXT_SYMBOLS = new Set("!#$%&'*+-/=?^_`{|}~");

function isAsciiAlphanumeric(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Never in an address: Unicode White_Space, control characters, lone surrogates. */
function isForbidden(char: string): boolean {
  return /[\p{White_Space}\p{Cc}\p{Cs}]/u.test(char);
}

function localPartOk(local: string): boolean {
  if (local === '' || octets(local) > 64) return false;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  for (const char of local) {
    if (char === '.') continue;
    const code = char.codePointAt(0) ?? 0;
    // RFC 6531: any non-ASCII character extends atext.
    if (code > 0x7f || isAsciiAlphanumeric(code) || ATEXT_SYMBOLS.has(char)) continue;
    return false;
  }
  return true;
}

function labelOk(label: string): boolean {
  if (label === '' || octets(label) > 63 || label.startsWith('-') || label.endsWith('-')) return false;
  for (const char of label) {
    if (char !== '-' && !/[\p{L}\p{M}\p{Nd}]/u.test(char)) return false;
  }
  return true;
}

export function isEmailAddress(value: unknown): value is string {
  if (typeof value !== 'string' || octets(value) > 254) return false;
  for (const char of value) if (isForbidden(char)) return false;
  const parts = value.split('@');
  if (parts.length !== 2) return false;
  const [local = '', domain = ''] = parts;
  if (!localPartOk(local) || octets(domain) > 255) return false;
  const labels = domain.split('.');
  const last = labels[labels.length - 1] ?? '';
  // A top-level label of digits only would make an IP address of the domain.
  if (labels.length < 2 || [...last].every((char) => /\p{Nd}/u.test(char))) return false;
  return labels.every(labelOk);
}
