/**
 * A Next.js App Router route handler receiving the Partner API's signed webhooks, on the Edge
 * Runtime or on Node: `app/api/webhooks/route.ts` in your project. Under the Edge Runtime the
 * package's `edge-light` export condition picks the build without Node modules; the handler
 * verifies each delivery with Web Crypto against the exact bytes received.
 *
 * In your project, import from 'mobile-partner-sdk/webhooks'.
 */
import { createFetchHandler } from '../../../../../src/webhooks/web.js';

export const runtime = 'edge';

const receive = createFetchHandler({
  // Read when a delivery arrives, so that a rotated secret is picked up without a redeploy.
  secret: async () => process.env.WEBHOOK_SIGNING_SECRET ?? '',
  onEvent: (event) => {
    console.log(`webhook ${event.type}${event.name ? ` (${event.name})` : ''}`);
  },
});

export async function POST(request: Request): Promise<Response> {
  return receive(request);
}
