/**
 * Run as a child process by the close() test: one call, close(), then report what still holds
 * the event loop. It must exit on its own, without process.exit().
 */
import { PartnerClient } from '../../src/index.js';

const client = new PartnerClient({
  baseUrl: process.env['CHILD_BASE_URL'] as string,
  key: 'pk_child_key_123456',
  secret: 'sk_child_secret_123456',
});
await client.request({ method: 'GET', path: '/api/v1.1/ping' });
await client.close();
const handles = process.getActiveResourcesInfo().filter((name) => name !== 'TTYWrap' && name !== 'PipeWrap');
process.stdout.write(`${JSON.stringify({ closedAt: Date.now(), handles })}\n`);
