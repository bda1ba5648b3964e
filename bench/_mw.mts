import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
const { PartnerClient } = await import(process.env.DIST ?? '/work/main/bench/.snapshot/dist/index.js');
const child = spawn('npx', ['tsx', '/work/main/bench/server.ts'], { stdio: ['pipe', 'pipe', 'inherit'] });
const line: string = await new Promise((r) => createInterface({ input: child.stdout! }).once('line', r));
const { api } = JSON.parse(line);
const rateLimit = process.env.NORL ? false : { account: { limit: 1e9, windowMs: 60_000 } };
const plain = new PartnerClient({ baseUrl: api, key: 'bench-key', secret: 'bench-secret', rateLimit });
const mw = new PartnerClient({ baseUrl: api, key: 'bench-key', secret: 'bench-secret', rateLimit, middleware: [(r: any, n: any) => n(r)] });
async function run(c: any, n: number) { const t = process.cpuUsage(); for (let i = 0; i < n; i++) await c.sims.list({ pageSize: 20 }); const d = process.cpuUsage(t); return (d.user + d.system) / n; }
await run(plain, 2000); await run(mw, 2000);
const r: number[] = [];
const url = `${api}/api/v1.1/sims?pageSize=20`;
const f = { sims: { list: async () => { const res = await fetch(url, { headers: { authorization: 'Bearer bench-token' } }); return res.json(); } } };
for (let round = 0; round < 8; round++) { if (process.env.F) await run(f, 500); const a = await run(plain, 1500); if (process.env.F) await run(f, 500); const b = await run(mw, 1500); r.push(b / a); }
r.sort(); console.log('median ratio', r[4]!.toFixed(3), r.map((x) => x.toFixed(2)).join(' '));
child.kill(); process.exit(0);
