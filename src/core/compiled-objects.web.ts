/**
 * The web build's twin of compiled-objects.ts: zod/mini's object parser stays. Workers refuse the
 * `new Function` that the compiled one needs, and leaving its code out keeps a Worker's bundle
 * small (test/package/worker-size.test.ts).
 */
export function compileObjects(): void {}
