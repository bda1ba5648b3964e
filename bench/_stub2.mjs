const { PartnerClient } = await import(process.env.DIST ?? '/work/main/bench/.snapshot/dist/index.js');
const fs = await import('node:fs');
const page = fs.readFileSync('/tmp/page.json', 'utf8'), token = fs.readFileSync('/tmp/token.json', 'utf8').trim();
const fetchStub = async (url) => new Response(url.includes('/auth/token') ? token : page, { status: 200, headers: { 'content-type': 'application/json' } });
const base = { baseUrl: 'http://127.0.0.1:9', key: 'bench-key', secret: 'bench-secret', rateLimit: { account: { limit: 1e9, windowMs: 60000 } }, fetch: fetchStub };
const a = new PartnerClient(base), b = new PartnerClient({ ...base, middleware: [(r, n) => n(r)] });
async function run(c, n) { const t = process.cpuUsage(); for (let i = 0; i < n; i++) await c.sims.list({ pageSize: 20 }); const d = process.cpuUsage(t); return (d.user + d.system) / n; }
await run(a, 3000); await run(b, 3000);
const r = [];
for (let p = 0; p < 60; p++) { if (p % 2) { const x = await run(a, 400), y = await run(b, 400); r.push(y / x); } else { const y = await run(b, 400), x = await run(a, 400); r.push(y / x); } }
r.sort((p, q) => p - q); console.log('median', r[30].toFixed(3), 'q1', r[15].toFixed(3), 'q3', r[45].toFixed(3));
process.exit(0);
