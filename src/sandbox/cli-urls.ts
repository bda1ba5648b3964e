/**
 * The URLs the `partner-sandbox` banner may print: only those that answer. A wildcard address
 * (0.0.0.0, ::) is not a URL a browser or client can open, and `localhost` resolves to 127.0.0.1
 * or ::1 depending on the machine, while the server listens on one of them only.
 */

const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '[::]', '::0', '0:0:0:0:0:0:0:0']);
const PROBE_TIMEOUT_MS = 1_000;

/** Loopback URLs to try for a listening address; the address's own URL when it is a concrete one. */
function candidateUrls(host: string, port: number, url: string): string[] {
  const name = host.toLowerCase();
  if (WILDCARDS.has(name) || name === 'localhost') return [`http://127.0.0.1:${port}`, `http://[::1]:${port}`];
  return [url];
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/_sandbox/time`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** The candidates that answer a control-API read (not recorded in the request log), in order. */
export async function reachableUrls(host: string, port: number, url: string): Promise<string[]> {
  const candidates = candidateUrls(host, port, url);
  const results = await Promise.all(candidates.map(answers));
  return candidates.filter((_candidate, index) => results[index]);
}
