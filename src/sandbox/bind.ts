/**
 * Where the sandbox may listen. Its control API (`/_sandbox/`) and inspector have no
 * authentication by design, so the sandbox stays on loopback unless the caller opts in with
 * `exposeOnNetwork` (`--expose`), and then it says loudly where it can be reached.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isLoopbackHostname } from '../shared/loopback.js';
import type { OptionProblem } from './option-grammar.js';

/** A DNS name as `listen()` would resolve it: LDH labels of 1–63 characters, at most 253 in all. */
const HOST_NAME = /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

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
 * Whether the sandbox would listen on loopback only: `localhost` (`localhost.`), or an IP literal
 * that is loopback by the client's own rule (src/shared/loopback.ts), written in any form
 * (`0:0::1`). Any other name may resolve anywhere, and a shorthand such as `0` or `127.1` is
 * resolved by the system, so only these literals count.
 */
export function isLoopbackHost(value: string): boolean {
  const host = listenHost(value).toLowerCase();
  const family = isIP(host);
  if (family === 0) return host === 'localhost' || host === 'localhost.';
  if (host.includes('%')) return false;
  return isLoopbackHostname(new URL(`http://${family === 6 ? `[${host}]` : host}/`).hostname);
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
