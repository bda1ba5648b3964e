/**
 * Where the sandbox may listen. Its control API (`/_sandbox/`) and inspector have no
 * authentication by design, so the sandbox stays on loopback unless the caller opts in with
 * `exposeOnNetwork` (`--expose`), and then it says loudly where it can be reached.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { OptionProblem } from './option-grammar.js';

/** A DNS name as `listen()` would resolve it: LDH labels of 1–63 characters, at most 253 in all. */
const HOST_NAME = /^(?=.{1,253}\.?$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;
const MAPPED_LOOPBACK = /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/;

const HOST_EXPECTED = 'an IP address or a host name (127.0.0.1, ::1, localhost)';

/** The address as `listen()` takes it: an IPv6 literal loses its URL brackets (`[::1]` → `::1`). */
export function listenHost(host: string): string {
  const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(inner) === 6 ? inner : host;
}

export function hostProblem(value: unknown): OptionProblem | undefined {
  if (typeof value !== 'string') return { kind: 'type', expected: HOST_EXPECTED };
  const host = listenHost(value);
  if (isIP(host) !== 0 || HOST_NAME.test(host)) return undefined;
  return { kind: 'range', expected: HOST_EXPECTED };
}

/**
 * Loopback per RFC 6890 and RFC 6761, the same set the client trusts with plain http://
 * (docs/security.md): `localhost` and `localhost.`, 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104,
 * written in any form (`0:0::1`). Any other name may resolve anywhere, and a shorthand such as
 * `0` resolves to the wildcard, so only these literals count.
 */
export function isLoopbackHost(value: string): boolean {
  const host = listenHost(value).toLowerCase();
  if (host === 'localhost' || host === 'localhost.') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) !== 6 || host.includes('%')) return false;
  // WHATWG URL writes an IPv6 address in its one canonical form.
  const canonical = new URL(`http://[${host}]/`).hostname.slice(1, -1);
  return canonical === '::1' || MAPPED_LOOPBACK.test(canonical);
}

function urlOf(address: string, port: number): string {
  return isIP(address) === 6 ? `http://[${address}]:${port}` : `http://${address}:${port}`;
}

/**
 * The URLs a server bound to `address` answers on: a wildcard address is every address of the
 * machine's interfaces of its family (`::` takes IPv4 too on a dual-stack system).
 */
function boundUrls(address: string, port: number): string[] {
  const wildcard = address === '0.0.0.0' || address === '::';
  if (!wildcard) return [urlOf(address, port)];
  const urls: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (entry.family === 'IPv6' && (address !== '::' || entry.scopeid)) continue;
      urls.push(urlOf(entry.address, port));
    }
  }
  return urls;
}

/** The warning of an exposed sandbox: where it answers, and what anyone reaching it can do. */
export function exposureWarning(host: string, address: string, port: number): string {
  const urls = boundUrls(address, port);
  return [
    `exposeOnNetwork: the Partner API sandbox listens on ${urlOf(address, port).slice('http://'.length)} (host ${host}), at ${urls.join(', ')}.`,
    'Its control API (/_sandbox/) and inspector have no authentication: anyone who reaches these URLs can read the request log, force answers, move the clock and reset the data.',
  ].join(' ');
}

/** Why the sandbox will not listen on `host`, or undefined when it may. */
export function bindRefusal(host: string, exposeOnNetwork: boolean): string | undefined {
  if (exposeOnNetwork || isLoopbackHost(host)) return undefined;
  return `${host} is not a loopback address, and the sandbox's control API (/_sandbox/) has no authentication`;
}
