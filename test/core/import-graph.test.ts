/**
 * The modules of src/core/ import one another in one direction only: a circle of imports (even of
 * types) makes each module's meaning depend on the others' and the order they load in. The
 * shared types live in core/types.ts, which imports nothing of core.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = path.resolve(import.meta.dirname, '../../src/core');

/** Each module of core and the modules of core it imports (`./x.js`, value or type). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(CORE).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(path.join(CORE, file), 'utf8');
    const imported = [...text.matchAll(/\bfrom '\.\/([\w.-]+)\.js'/g)].map(([, name = '']) => `${name}.ts`);
    graph.set(file, imported);
  }
  return graph;
}

/** Every circle of the graph, each as the path that closes it. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (module: string, trail: string[]): void => {
    state.set(module, 'open');
    for (const next of graph.get(module) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...trail.slice(trail.indexOf(next)), module, next]);
      else if (state.get(next) === undefined) visit(next, [...trail, module]);
    }
    state.set(module, 'done');
  };
  for (const module of graph.keys()) if (state.get(module) === undefined) visit(module, []);
  return found;
}

describe("src/core's imports", () => {
  it('form no circle', () => {
    expect(circles(importGraph()).map((circle) => circle.join(' → '))).toEqual([]);
  });

  it('would name a circle if there were one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(circles(graph).map((circle) => circle.join(' → '))).toEqual(['a.ts → b.ts → c.ts → a.ts']);
  });

  it('leave types.ts a leaf', () => {
    expect(importGraph().get('types.ts')).toEqual([]);
  });
});
