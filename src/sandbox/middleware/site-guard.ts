/**
 * What a web page may do to the sandbox: nothing, unless the sandbox served the page. The
 * sandbox runs on a developer's machine while they browse, and its control API has no
 * authentication, so before any route runs:
 *
 * - Served over HTTP, a request whose `Host` names anything but loopback (`localhost`,
 *   `127.0.0.1`, `[::1]`), the address the sandbox listens on or an `allowedHosts` name is refused
 *   on every route: a page on a name that resolves to 127.0.0.1 (DNS rebinding) is same-origin
 *   with itself, not with the sandbox, and must not read the request log or the signing secrets.
 * - A control request (/_sandbox/) that a browser sent from another origin is refused: a page
 *   on another site, or on another port of localhost (same-site, still another origin). A
 *   browser says so in `Sec-Fetch-Site` and `Origin`, which a page cannot forge; a request
 *   without them (the SDK, curl, a test) is not from a page. A top-level navigation may still
 *   open a control GET: reading it in a tab is the user's own doing.
 * - No control route is shown inside a page (`Sec-Fetch-Dest: iframe`, `frame`, `embed`,
 *   `object`), even one of the same origin: a frame is a navigation that passes the rule above.
 * - The inspector's feed (GET /_sandbox/events) has a few watcher slots, held while a stream is
 *   open: only a script's request may take one (the page's own EventSource), never a navigation,
 *   so a page cannot fill them by framing or opening the feed.
 * - A control write must be JSON: a form post or a `text/plain` body (the requests a page may
 *   send elsewhere without a CORS preflight) is refused even without those headers.
 *
 * The partner API's routes carry a bearer token that a page cannot attach without a preflight
 * the sandbox never grants, so only the Host rule applies to them.
 */
import type { MiddlewareHandler } from 'hono';
import type { SandboxContext, SandboxEnv } from '../context.js';
import { hostNameOfHeader, normalizeHostName } from '../host-names.js';
import { FEED_PATH } from '../inspector/feed.js';

/** Names every served sandbox answers to. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
/** An address that listens on every interface is not a name a client sends. */
const WILDCARD_NAMES: ReadonlySet<string> = new Set(['0.0.0.0', '[::]']);
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
/** Where a browser shows what a page embeds. */
const EMBEDDED_DESTINATIONS: ReadonlySet<string> = new Set(['iframe', 'frame', 'embed', 'object', 'fencedframe']);
/** What of a refused Host header an answer repeats. */
const SHOWN_HOST_CHARS = 100;

/** The host names a served sandbox answers to; `allowed` entries with a leading dot allow subdomains. */
export interface HostPolicy {
  /** Exact names, normalized. */
  names: ReadonlySet<string>;
  /** `.example.test` entries: the name and every subdomain. */
  suffixes: readonly string[];
}

export function hostPolicy(listenHost: string, allowedHosts: readonly string[]): HostPolicy {
  const names = new Set(LOOPBACK_NAMES);
  const bound = normalizeHostName(listenHost);
  if (bound !== null && !WILDCARD_NAMES.has(bound)) names.add(bound);
  const suffixes: string[] = [];
  for (const entry of allowedHosts) {
    if (entry.startsWith('.')) suffixes.push(entry);
    else names.add(entry);
  }
  return { names, suffixes };
}

function hostAllowed(policy: HostPolicy, header: string | null): boolean {
  // HTTP/1.1 requires Host (node:http refuses a request without it); an HTTP/1.0 client that
  // sends none is no browser, and a browser always sends one.
  if (header === null) return true;
  const name = hostNameOfHeader(header);
  if (name === null) return false;
  return policy.names.has(name) || policy.suffixes.some((suffix) => name === suffix.slice(1) || name.endsWith(suffix));
}

/** The `host` of an origin-form value (`http://name:port`), as the `Host` header would write it; null for `null` and the like. */
function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : null;
  } catch {
    return null;
  }
}

/** Why a browser's request comes from a page of another origin, or null when it does not. */
function crossOrigin(request: Request, ownHost: string): string | null {
  const headers = request.headers;
  const site = headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site.slice(0, 20)}`;
  const origin = headers.get('origin');
  if (origin !== null && originHost(origin) !== ownHost) return `Origin: ${origin.slice(0, SHOWN_HOST_CHARS)}`;
  return null;
}

/**
 * Why a request may not take a watcher slot of the feed, or null when it may. The inspector's
 * EventSource is a script's request (`Sec-Fetch-Dest: empty`, `Sec-Fetch-Mode: cors`); a browser
 * that sends no fetch metadata says a navigation by asking for HTML (`Accept: text/html`, which an
 * EventSource never sends). A request with neither is no browser's (curl, the SDK, a test).
 */
function notAFeedReader(headers: Headers): string | null {
  const destination = headers.get('sec-fetch-dest');
  if (destination !== null && destination !== 'empty') return `Sec-Fetch-Dest: ${destination.slice(0, 20)}`;
  const mode = headers.get('sec-fetch-mode');
  if (mode !== null && mode !== 'cors' && mode !== 'same-origin') return `Sec-Fetch-Mode: ${mode.slice(0, 20)}`;
  if (destination === null && (headers.get('accept') ?? '').toLowerCase().includes('text/html')) return 'Accept: text/html';
  return null;
}

/** A control write's body type: null when acceptable, else the reason it is not. */
function notJson(request: Request): string | null {
  const type = request.headers.get('content-type');
  if (type === null) {
    // No type and no body: nothing a form or a text body could carry.
    const hasBody = request.body !== null && request.headers.get('content-length')?.trim() !== '0';
    return hasBody ? 'a control request with a body must send Content-Type: application/json' : null;
  }
  const essence = (type.split(';')[0] ?? '').trim().toLowerCase();
  return essence === 'application/json'
    ? null
    : `control requests take Content-Type: application/json, not ${essence.slice(0, 60) || 'an empty type'}`;
}

const isControlPath = (rawPath: string): boolean => rawPath === '/_sandbox' || rawPath.startsWith('/_sandbox/');

/**
 * The guard, first of every middleware. `hosts` is null for a sandbox answered in process
 * (createSandbox: msw, a test's fetch), where no browser connects and the Host is the caller's.
 */
export function siteGuard(ctx: SandboxContext, hosts: HostPolicy | null, rawPathOf: (request: Request) => string): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const request = c.req.raw;
    const rawPath = rawPathOf(request);
    const control = isControlPath(rawPath);
    const hostHeader = request.headers.get('host');
    if (hosts !== null && !hostAllowed(hosts, hostHeader)) {
      const shown = JSON.stringify((hostHeader ?? '').slice(0, SHOWN_HOST_CHARS));
      const message =
        `Host ${shown} is not a name this sandbox answers to (${[...hosts.names, ...hosts.suffixes].join(', ')}); ` +
        'add it to the allowedHosts option (--allowed-host) to allow it';
      return control ? Response.json({ error: message }, { status: 403 }) : ctx.fail(c, 403, 'FORBIDDEN', message);
    }
    if (!control) return next();

    const destination = request.headers.get('sec-fetch-dest');
    if (destination !== null && EMBEDDED_DESTINATIONS.has(destination)) {
      return Response.json({ error: `control routes are not shown inside a page (Sec-Fetch-Dest: ${destination})` }, { status: 403 });
    }
    const notReader = rawPath === FEED_PATH ? notAFeedReader(request.headers) : null;
    if (notReader !== null) {
      return Response.json(
        {
          error: `the live feed is read by the inspector page's EventSource, not opened by a navigation (${notReader}); curl and other clients may read it`,
        },
        { status: 403 },
      );
    }
    const unsafe = !SAFE_METHODS.has(request.method);
    // A link or a typed address opens a control GET in a tab of its own: a page cannot read it.
    const navigation = !unsafe && request.headers.get('sec-fetch-mode') === 'navigate';
    const ownHost = originHost(`http://${hostHeader ?? new URL(request.url).host}`) ?? '';
    const foreign = navigation ? null : crossOrigin(request, ownHost);
    if (foreign !== null) {
      return Response.json(
        {
          error: `control requests are refused from a page of another origin (${foreign}); the sandbox's own page and non-browser clients may send them`,
        },
        { status: 403 },
      );
    }
    const badType = unsafe ? notJson(request) : null;
    if (badType !== null) return Response.json({ error: badType }, { status: 415 });
    return next();
  };
}
