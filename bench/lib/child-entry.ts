/**
 * Runs one figure in a fresh process (`node --expose-gc --import tsx bench/lib/child-entry.ts <figure> <config>`),
 * so no figure inherits another's heap, JIT state or sockets; prints `RESULT <rows as JSON>`.
 */
import type { FigureConfig, Measure } from './figure.js';

const [name, json] = process.argv.slice(2);
if (!name || !json || !/^[a-z-]+$/.test(name)) throw new Error('usage: child-entry.ts <figure> <config json>');
const figure = (await import(`../figures/${name}.js`)) as { measure: Measure };
const rows = await figure.measure(JSON.parse(json) as FigureConfig);
process.stdout.write(`\nRESULT ${JSON.stringify(rows)}\n`);
// A figure that forgot a socket must not hang the whole run; its rows are already out.
process.exit(0);
