import { Client } from "undici";
import { startSandbox } from "../dist/sandbox/index.js";
const sandbox = await startSandbox({ port: 0, rateLimit: false, transactionDelayMs: 10 });
const raw = new Client(sandbox.url);
const ex = await raw.request({ method: "POST", path: "/api/v1.1/auth/token", headers: { "content-type": "application/json" }, body: JSON.stringify({ key: sandbox.key, secret: sandbox.secret }) });
const token = (await ex.body.json()).data.access_token;
async function run(n, path, method = "GET", body) {
  const t = process.cpuUsage();
  const w = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await raw.request({ method, path, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body });
    await r.body.text();
  }
  const d = process.cpuUsage(t);
  console.log(path, method, ((d.user + d.system) / n / 1e3).toFixed(3), "ms CPU/req", ((performance.now() - w) / n).toFixed(3), "ms wall");
}
await run(3e3, "/api/v1.1/plans");
await run(1e3, "/api/v1.1/sims?pageSize=5");
await run(1e3, "/api/v1.1/sms", "POST", JSON.stringify({ fromNumber: "x", toNumber: 1, text: "hi" }));
await raw.close();
await sandbox.close();
