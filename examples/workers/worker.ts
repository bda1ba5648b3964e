/**
 * A Cloudflare Worker that calls the Partner API and receives its signed webhooks, with no
 * client option but the credentials: in Workers the package's `workerd` export condition picks
 * a build that sends with the platform's fetch and needs no compatibility flag.
 *
 *   GET  /sims      → the first page of SIMs, as JSON
 *   POST /webhooks  → a delivery, verified with Web Crypto before `onEvent` sees it
 *
 * In your project, import from 'mobile-partner-sdk' and 'mobile-partner-sdk/webhooks'; deploy
 * with `wrangler deploy` and set the secrets with `wrangler secret put PARTNER_API_KEY` (and
 * PARTNER_API_SECRET, WEBHOOK_SIGNING_SECRET).
 */
import { NotFoundError, PartnerClient } from '../../src/index.js';
import { createFetchHandler, type WebhookEvent } from '../../src/webhooks/web.js';

/** The Worker's bindings (wrangler.toml `[vars]` and secrets). */
interface Env {
  PARTNER_API_BASE_URL: string;
  PARTNER_API_KEY: string;
  PARTNER_API_SECRET: string;
  WEBHOOK_SIGNING_SECRET: string;
}

async function onEvent(event: WebhookEvent): Promise<void> {
  switch (event.type) {
    case 'sms':
      console.log(`SMS event ${event.name ?? ''} at ${event.delivery.timestamp}`);
      break;
    case 'voice.test.completed':
      console.log(`voice quality test ${event.id} completed`);
      break;
    case 'voice':
    case 'webhook.test':
    case 'unknown':
      console.log(`event ${event.type}`);
      break;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (request.method === 'POST' && pathname === '/webhooks') {
      return createFetchHandler({ secret: env.WEBHOOK_SIGNING_SECRET, onEvent })(request);
    }
    if (request.method === 'GET' && pathname === '/sims') {
      // One client per request: a Worker may not carry I/O objects from one request to the next.
      const client = new PartnerClient({ baseUrl: env.PARTNER_API_BASE_URL, key: env.PARTNER_API_KEY, secret: env.PARTNER_API_SECRET });
      try {
        const page = await client.sims.list({ pageSize: 20 });
        return Response.json({ sims: page.data.map((sim) => sim.iccid), total: page.meta?.total });
      } catch (error) {
        if (error instanceof NotFoundError) return new Response('not found', { status: 404 });
        throw error;
      } finally {
        await client.close();
      }
    }
    return new Response('not found', { status: 404 });
  },
};
