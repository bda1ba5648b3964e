import os from 'node:os';

/** One line of the table and of bench/results.json. */
export interface Row {
  id: string;
  figure: string;
  value: number | null;
  baseline: number | null;
  unit: string;
  baselineLabel: string;
  ratio: number | null;
  goal: string;
  /** null: informational, or not measured (see `skipped`). */
  met: boolean | null;
  skipped?: string;
  note?: string;
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  node: string;
  os: string;
  totalMemoryGb: number;
  loadAverageAtStart: number[];
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    totalMemoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverageAtStart: os.loadavg().map((load) => Math.round(load * 100) / 100),
  };
}

/** A row whose measurement could not run; the baseline, when it ran, is still shown. */
export function skippedRow(
  id: string,
  figure: string,
  goal: string,
  reason: string,
  baseline: { value: number; unit: string; label: string } | undefined = undefined,
): Row {
  return {
    id,
    figure,
    value: null,
    baseline: baseline?.value ?? null,
    unit: baseline?.unit ?? '',
    baselineLabel: baseline?.label ?? '',
    ratio: null,
    goal,
    met: null,
    skipped: reason,
  };
}

function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (Number.isInteger(value) && abs < 1000) return String(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function cell(value: number | null, unit: string): string {
  return value === null ? '—' : `${formatNumber(value)}${unit ? ` ${unit}` : ''}`;
}

function metCell(row: Row): string {
  if (row.skipped) return 'skipped';
  if (row.met === null) return 'info';
  return row.met ? 'yes' : 'NO';
}

export function tableLines(rows: readonly Row[]): string[] {
  const header = ['figure', 'value', 'baseline', 'ratio', 'goal', 'met?'];
  const body = rows.map((row) => [
    row.figure,
    row.skipped ? `not available yet: ${row.skipped}` : cell(row.value, row.unit),
    row.skipped && row.baseline === null ? '' : `${cell(row.baseline, row.unit)}${row.baselineLabel ? ` (${row.baselineLabel})` : ''}`,
    row.ratio === null ? '—' : row.ratio.toFixed(2),
    row.goal,
    metCell(row),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((line) => (line[column] ?? '').length)));
  const render = (line: string[]): string => `| ${line.map((text, column) => text.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [render(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...body.map(render)];
}
