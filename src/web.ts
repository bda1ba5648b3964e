/**
 * The main entry as Workers, Vercel's Edge Runtime and browsers get it (the package's export
 * conditions workerd, worker, edge-light and browser): the same exports as index.ts, built with
 * each module's `.web.ts` twin in place of the original (tsup.config.ts). The client sends with
 * the platform's fetch, the webhook HMAC is computed without node:crypto, and nothing in this
 * graph imports undici or a Node module.
 */
export * from './index.js';
