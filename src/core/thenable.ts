/**
 * A guest's function typed to return nothing (a logger method, `span.end()`, `histogram.record()`)
 * that returned a promise anyway: its rejection goes to `failed` instead of being left unhandled.
 * Reading `then` is guest code too: a getter that throws is the caller's to catch.
 */
export function settle(value: unknown, failed: (error: unknown) => void): void {
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
    const then = (value as { then?: unknown }).then;
    if (typeof then === 'function') (then as PromiseLike<unknown>['then']).call(value, undefined, failed);
  }
}
