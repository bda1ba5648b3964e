/**
 * test/mutation/equivalent-mutants.md moves with the code it names: every location it lists lies
 * inside its file, on a line that holds the code the row quotes. And scripts/mutation-check.mjs,
 * which holds a Stryker report to that list, fails on a survivor the list does not name and on an
 * entry no survivor answers to.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's scripts, without types of its own.
import { check, listedLocations, listedRows } from '../../scripts/mutation-check.mjs';

const LIST = readFileSync(new URL('../mutation/equivalent-mutants.md', import.meta.url), 'utf8');

interface Row {
  file: string;
  where: string;
  mutant: string;
}

const squeeze = (text: string) => text.replace(/\s+/g, '');

describe('the list of equivalent mutants', () => {
  const listed = listedRows(LIST) as Row[];

  it('names locations in each file it is about', () => {
    expect(listed.length).toBeGreaterThan(50);
  });

  it.each(listed.map((row) => [`${row.file} ${row.where}`, row] as const))('%s is where its code is', (_, row) => {
    const source = readFileSync(new URL(`../../${row.file}`, import.meta.url), 'utf8').split('\n');
    const locations = [...row.where.matchAll(/(\d+):(\d+)/g)].map(([, line = '', column = '']) => ({ line: Number(line), column: Number(column) }));
    for (const { line, column } of locations) {
      expect(line, 'a line of the file').toBeLessThanOrEqual(source.length);
      expect(column, 'a column of the line').toBeLessThanOrEqual((source[line - 1] ?? '').length);
    }
    // The code the row quotes (before `→`, in pieces around an ellipsis) is on one of its lines.
    const quoted = [...row.mutant.split('→')[0]!.matchAll(/`([^`]+)`/g)]
      .flatMap(([, code = '']) => code.replace(/\\\|/g, '|').split('…'))
      .map(squeeze)
      .filter((piece) => piece.length >= 3);
    if (quoted.length === 0) return;
    const lines = locations.map(({ line }) => squeeze(source[line - 1] ?? ''));
    expect(
      quoted.some((piece) => lines.some((text) => text.includes(piece))),
      `one of ${JSON.stringify(quoted)} on line(s) ${locations.map(({ line }) => line).join(', ')}`,
    ).toBe(true);
  });
});

describe('scripts/mutation-check.mjs', () => {
  const mutant = (line: number, column: number, status: string) => ({
    mutatorName: 'ConditionalExpression',
    replacement: 'true',
    status,
    location: { start: { line, column } },
  });
  const report = (mutants: object[]) => ({ files: { 'src/core/window-gate.ts': { mutants } } });
  const list = listedLocations(LIST) as Map<string, Set<string>>;
  const [first, ...others] = [...(list.get('src/core/window-gate.ts') ?? [])];
  const at = (where: string) => where.split(':').map(Number) as [number, number];

  it('reads the locations under each heading and those named in a row', () => {
    expect(first).toMatch(/^\d+:\d+$/);
    expect(list.get('src/core/rate-limit.ts')?.has('104:26')).toBe(true);
  });

  it('sets the listed survivors aside and names every other one', () => {
    const [result] = check(report([mutant(...at(first as string), 'Survived'), mutant(1, 1, 'Survived'), mutant(2, 1, 'Killed')]), list);
    expect(result).toMatchObject({ mutants: 3, killed: 1, listed: 1 });
    expect(result.unlisted.map((one: { location: { start: { line: number } } }) => one.location.start.line)).toEqual([1]);
    expect(result.score).toBeCloseTo(100 / 3);
    expect(result.scoreWithoutListed).toBe(50);
  });

  it('names every entry no survivor answers to', () => {
    const [result] = check(report([mutant(...at(first as string), 'Survived')]), list);
    expect(result.stale).toEqual(others);
  });
});
