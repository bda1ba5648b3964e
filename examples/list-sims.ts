/**
 * List every SIM of the account with auto-pagination: `for await` walks all pages, fetching the
 * next page while this loop counts the current one, with constant memory.
 *
 *   npx tsx examples/list-sims.ts
 *
 * In your project, import from 'mobile-partner-sdk' instead of '../src/index.js'.
 */
import { run } from './lib/connect.js';

await run(async ({ client }) => {
  const first = await client.sims.list({ pageSize: 100 });
  console.log(`The account has ${first.meta?.total ?? 'an unknown number of'} SIMs (${first.meta?.totalPages ?? '?'} pages of 100).`);

  const byStatus = new Map<string, number>();
  const byOperator = new Map<string, number>();
  let esims = 0;
  for await (const sim of client.sims.list({ pageSize: 100 })) {
    byStatus.set(sim.status, (byStatus.get(sim.status) ?? 0) + 1);
    byOperator.set(sim.operator, (byOperator.get(sim.operator) ?? 0) + 1);
    if (sim.isEsim) esims += 1;
  }
  console.log('By status:  ', Object.fromEntries(byStatus));
  console.log('By operator:', Object.fromEntries(byOperator));
  console.log(`eSIMs: ${esims}`);

  const unassigned = await client.sims.list({ assignedStatus: 'UNASSIGNED', status: 'ACTIVE', pageSize: 5 });
  console.log(`Active SIMs waiting for a user: ${unassigned.meta?.total ?? unassigned.data.length}, for example:`);
  for (const sim of unassigned.data) console.log(`  ${sim.iccid}  ${sim.phoneNumber}  ${sim.operator} / ${sim.network}`);
});
