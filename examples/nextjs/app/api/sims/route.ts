/**
 * A Next.js App Router route handler that calls the Partner API from the server: `GET
 * /api/sims?pageSize=20` answers a page of SIMs. The client takes its credentials from
 * PARTNER_API_BASE_URL, PARTNER_API_KEY and PARTNER_API_SECRET; under the Edge Runtime it sends
 * with the platform's fetch, under Node with undici, with no option either way.
 *
 * In your project, import from 'mobile-partner-sdk'.
 */
import { PartnerClient, PartnerError } from '../../../../../src/index.js';

export const runtime = 'edge';

export async function GET(request: Request): Promise<Response> {
  const pageSize = Number(new URL(request.url).searchParams.get('pageSize') ?? '20');
  const client = new PartnerClient();
  try {
    const page = await client.sims.list({ pageSize });
    return Response.json({ sims: page.data, total: page.meta?.total });
  } catch (error) {
    // A PartnerError's message and toJSON() carry no secret: safe to log and to answer with its status.
    if (error instanceof PartnerError) return Response.json({ error: error.message }, { status: 502 });
    throw error;
  } finally {
    await client.close();
  }
}
