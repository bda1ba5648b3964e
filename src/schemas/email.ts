/**
 * The email rule (docs/shapes.md, "Formats"): an address as RFC 6531 allows it, internationalized
 * ones included. The sandbox checks the same written rule with its own code, so that a mistake in
 * either shows up as a disagreement in the contract test.
 */

/** White_Space, control characters and lone surrogates are never part of an address. */
const FORBIDDEN = /[\p{White_Space}\p{Cc}\p{Cs}]/u;
/** RFC 5322 atext (ASCII letters, digits, !#$%&'*+-/=?^_`{|}~) or any non-ASCII character (RFC 6531 UTF8-non-ascii). */
const ATOM = /^[\w!#$%&'*+\-/=?^`{|}~\P{ASCII}]+$/u;
/** Letters and combining marks of any script, decimal digits and hyphens; no hyphen first or last. */
const LABEL = /^[\p{L}\p{M}\p{Nd}](?:[\p{L}\p{M}\p{Nd}-]*[\p{L}\p{M}\p{Nd}])?$/u;
const DIGITS = /^\p{Nd}+$/u;

const MAX_LOCAL_OCTETS = 64;
const MAX_DOMAIN_OCTETS = 255;
const MAX_LABEL_OCTETS = 63;
const MAX_ADDRESS_OCTETS = 254;

/** Length in UTF-8 octets, which is what the RFCs' limits count. */
function utf8Octets(text: string): number {
  let octets = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    octets += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return octets;
}

/** Whether `value` is an email address by the rule of docs/shapes.md. */
export function isEmailAddress(value: string): boolean {
  if (FORBIDDEN.test(value) || utf8Octets(value) > MAX_ADDRESS_OCTETS) return false;
  const at = value.indexOf('@');
  if (at === -1 || at !== value.lastIndexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (utf8Octets(local) > MAX_LOCAL_OCTETS || utf8Octets(domain) > MAX_DOMAIN_OCTETS) return false;
  // A dot-atom: atoms joined by single dots (RFC 5322 3.2.3), so no dot first, last or doubled.
  if (!local.split('.').every((atom) => ATOM.test(atom))) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || DIGITS.test(labels[labels.length - 1] ?? '')) return false;
  return labels.every((label) => LABEL.test(label) && utf8Octets(label) <= MAX_LABEL_OCTETS);
}

export const EMAIL_MESSAGE = 'must be an email address such as name@example.com (internationalized addresses are fine)';
