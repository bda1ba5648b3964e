/**
 * Editors show public results by name: `Sim`, not an expanded zod structure. The type checker is
 * asked how it prints the result of each call, as a hover would show it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

/** `name: expression` pairs: each expression is a public result whose printed type must be `name`. */
const results: Record<string, string> = {
  Sim: '(await client.sims.list()).data[0]!',
  SubscriptionDetail: 'await client.sims.retrieveSubscription("i")',
  RenewNumberResult: 'await client.sims.renewNumber("i")',
  Subscription: '(await client.subscriptions.list()).data[0]!',
  SubscriptionCancellation: 'await client.subscriptions.cancel("i")',
  Plan: 'await client.plans.retrieve("p")',
  PlanPurchase: 'await client.plans.purchase({})',
  EsimActivation: 'await client.esim.retrieveQr("i")',
  'CompletedTransaction<EsimProvisioningResult>': 'await (await client.esim.provision({})).wait()',
  EsimProvisioningResult: '(await (await client.esim.provision({})).wait()).result',
  PortIn: '(await client.portIns.list()).data[0]!',
  PortInEligibility: 'await client.portIns.checkEligibility({})',
  CreditBalance: 'await client.billing.retrieveCreditBalance()',
  TeamMember: '(await client.teamMembers.list()).data[0]!',
  TeamMemberDetail: 'await client.teamMembers.retrieve("e")',
  TeamMemberCreated: 'await client.teamMembers.create({})',
  SimGroup: 'await client.simGroups.retrieve("g")',
  UserGroupDeletion: 'await client.userGroups.delete("g")',
  DeviceAssignment: 'await client.devices.assign("i", { email: "e@example.com" })',
  SmsSendResult: 'await client.sms.send({ fromNumber: "+1", toNumber: "+2", text: "t" })',
  VoiceQualityWebhook: '(await client.voiceQuality.webhooks.list()).data[0]!',
  WebhookRegistrationWithSecret: 'await client.webhooks.create({ operator: "o", network: "n", eventType: "sms" })',
  WebhookRegistration: 'await client.webhooks.retrieve("w")',
  WebhookDeletion: 'await client.webhooks.delete("w")',
  WebhookTestResult: 'await client.webhooks.test("w")',
  WebhookDelivery: '(await client.webhooks.deliveries.list()).data[0]!',
  'Transaction<unknown>': 'await client.transactions.retrieve("t")',
  'CompletedTransaction<unknown>': 'await client.transactions.wait("t")',
  Order: 'await client.orders.retrieve("o")',
  User: '(await client.users.list()).data[0]!',
  TokenResponse: 'await client.auth.token()',
};

function printedTypes(): Map<string, string> {
  const names = Object.keys(results);
  const probe = join(here, '__named_types_probe__.ts');
  const text = [
    "import type { PartnerClient } from '../../src/index.js';",
    'declare const client: PartnerClient;',
    ...names.map((_, index) => `export const r${index} = ${results[names[index] as string]};`),
  ].join('\n');
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => readFileSync(path, 'utf8'));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (
    (exists) => (path: string) =>
      path === probe || exists(path)
  )(host.fileExists.bind(host));
  host.readFile = (path) => (path === probe ? text : readFile(path));
  host.getSourceFile = (path, language) => (path === probe ? ts.createSourceFile(path, text, language) : getSourceFile(path, language));
  const program = ts.createProgram([probe], { ...options, noEmit: true }, host);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(probe);
  if (!source) throw new Error('probe not compiled');
  const errors = ts.getPreEmitDiagnostics(program, source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(errors).toEqual([]);
  const printed = new Map<string, string>();
  source.forEachChild((node) => {
    if (!ts.isVariableStatement(node)) return;
    for (const declaration of node.declarationList.declarations) {
      if (!/^r\d+$/.test(declaration.name.getText(source))) continue;
      const index = Number(declaration.name.getText(source).slice(1));
      printed.set(names[index] as string, checker.typeToString(checker.getTypeAtLocation(declaration.name)));
    }
  });
  return printed;
}

describe('public results read by name', () => {
  it('every result type prints as its name, the way a hover shows it', () => {
    const printed = printedTypes();
    expect(Object.fromEntries(printed)).toEqual(Object.fromEntries(Object.keys(results).map((name) => [name, name])));
  }, 60_000);
});
