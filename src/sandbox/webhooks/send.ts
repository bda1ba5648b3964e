export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** What one HTTP attempt of a delivery gave: `responseCode` is 0 when no answer came. */
export interface AttemptOutcome {
  ok: boolean;
  responseCode: number;
}

export interface SendOptions {
  fetch: FetchLike;
  url: string;
  body: string;
  headers: Record<string, string>;
  /**
   * Real milliseconds allowed for an answer; slower answers count as failures. Real time, not
   * sandbox time: the receiver answers in real time whatever the sandbox clock's scale.
   */
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Hosts under the reserved `.example` and `.invalid` names (RFC 2606) never resolve; the seeded
 * voice quality webhooks use them, and a delivery to them fails at once without touching the network.
 */
function isReservedHost(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host.endsWith('.example') || host.endsWith('.invalid');
  } catch {
    return true;
  }
}

/**
 * One POST of a signed body. Success is any 2xx within the timeout (spec part 6); the response
 * body is discarded unread, since the delivery log never keeps it.
 */
export async function sendOnce(options: SendOptions): Promise<AttemptOutcome> {
  if (isReservedHost(options.url) || options.signal.aborted) return { ok: false, responseCode: 0 };
  const attempt = new AbortController();
  const abortAttempt = (): void => attempt.abort(options.signal.reason);
  options.signal.addEventListener('abort', abortAttempt, { once: true });
  const timer = setTimeout(() => attempt.abort(new Error('delivery attempt timed out')), options.timeoutMs);
  try {
    const response = await options.fetch(options.url, {
      method: 'POST',
      // One connection per attempt: an idle keep-alive socket in fetch's shared pool would outlive
      // the sandbox's close().
      headers: { ...options.headers, connection: 'close' },
      body: options.body,
      redirect: 'manual',
      signal: attempt.signal,
    });
    await response.body?.cancel().catch(() => undefined);
    return { ok: response.status >= 200 && response.status < 300, responseCode: response.status };
  } catch {
    return { ok: false, responseCode: 0 };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', abortAttempt);
    attempt.abort(new Error('attempt settled'));
  }
}
