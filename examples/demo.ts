/**
 * `npm run demo`: a partner's day, end to end, against a sandbox started for the run
 * (or the API in PARTNER_API_BASE_URL): token, fleet overview with auto-pagination, a
 * subscription, an eSIM provisioned and awaited, a top-up, an SMS, a webhook with its one-time
 * signing secret, and a typed error.
 */
import { NotFoundError, NotImplementedError, type Sim } from '../src/index.js';
import { connect, mask } from './lib/connect.js';

const step = (title: string): void => console.log(`\n▸ ${title}`);
const line = (text: string): void => console.log(`  ${text}`);

const connection = await connect();
const { client } = connection;
try {
  console.log(`mobile-partner-sdk demo against ${connection.sandbox ? 'a local sandbox at ' : ''}${connection.baseUrl}`);

  step('Authenticate (normally automatic)');
  const token = await client.auth.token();
  line(`${token.token_type} token ${mask(token.access_token)}, valid ${token.expires_in} s (until ${token.expires_at})`);

  step('Fleet overview: every SIM, page by page, with auto-pagination');
  const byStatus: Record<string, number> = {};
  let total = 0;
  let esims = 0;
  let pages = 0;
  const activeSims: Sim[] = [];
  for await (const page of client.sims.list({ pageSize: 100 }).iterPages()) {
    pages += 1;
    for (const sim of page.data) {
      total += 1;
      byStatus[sim.status] = (byStatus[sim.status] ?? 0) + 1;
      if (sim.isEsim) esims += 1;
      if (sim.status === 'ACTIVE' && activeSims.length < 25) activeSims.push(sim);
    }
  }
  line(
    `${total} SIMs in ${pages} pages: ${Object.entries(byStatus)
      .map(([status, count]) => `${count} ${status}`)
      .join(', ')}; ${esims} eSIMs`,
  );

  step("Look up a line's subscription");
  for (const sim of activeSims) {
    try {
      const subscription = await client.sims.retrieveSubscription(sim.iccid);
      line(`${sim.phoneNumber} (${sim.iccid}): "${subscription.productName}" ${subscription.status}, ends ${subscription.endDate ?? 'never'}`);
      break;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }

  step('Provision an eSIM and wait for it');
  const planId = process.env['PLAN_ID'] ?? 'Business 5GB';
  const provisioning = await client.esim.provision({ planId });
  line(`accepted: transaction ${provisioning.transactionId}`);
  const provisioned = await provisioning.wait({ timeoutMs: 60_000, onProgress: (transaction) => line(`… ${transaction.status}`) });
  line(`new line ${provisioned.result?.mdn} on eSIM ${provisioned.result?.iccid}`);

  step('Top up the prepaid balance');
  const before = await client.billing.retrieveCreditBalance();
  const currency = before.creditBalance[0]?.currency ?? 'aud';
  const topUp = await client.billing.topUp({ amount: 50, currency });
  await topUp.wait({ timeoutMs: 60_000 });
  const after = await client.billing.retrieveCreditBalance();
  const amountOf = (balance: typeof before): number => balance.creditBalance.find((entry) => entry.currency === currency)?.amount ?? 0;
  line(`${currency.toUpperCase()} ${amountOf(before).toFixed(2)} → ${amountOf(after).toFixed(2)}`);

  step('Send an SMS from one of the lines');
  for (const sim of activeSims) {
    try {
      const sent = await client.sms.send({ fromNumber: sim.phoneNumber, toNumber: '+61400999888', text: 'Your eSIM is ready.' });
      line(`from ${sim.phoneNumber} (${sim.operator}): ${sent.message}`);
      break;
    } catch (error) {
      if (!(error instanceof NotImplementedError)) throw error;
      line(`${sim.operator} has no outbound SMS (501 ${error.code}); next line`);
    }
  }

  step('Register a webhook for inbound SMS and voice events');
  const target = activeSims[0];
  if (target) {
    const registration = await client.webhooks.create({
      operator: target.operator,
      network: target.network,
      eventType: 'both',
      update: true,
      webhookUrls: { messageUrl: 'https://partner.example/hooks/sms', voiceUrl: 'https://partner.example/hooks/voice' },
    });
    line(`${registration.id} for ${registration.operator} / ${registration.network} (${registration.status ?? 'active'})`);
    line(`signing secret, shown only once: ${mask(registration.signingSecret)}`);
  }

  step('Handle a typed error');
  try {
    await client.plans.retrieve('No Such Plan');
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    line(`${error.name}: ${error.status} ${error.code} on ${error.route}`);
  }

  console.log('\nDone.');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await connection.close();
}
