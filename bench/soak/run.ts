/**
 * One soak run: a faulted sandbox in this process, the client in a child process, the two joined
 * by operation id (the child's outcomes, the sandbox's commit journal).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../src/sandbox/index.js';
import type { ChildInput, ChildLine } from './child.js';
import type { Outcome } from './operations.js';
import { planOperations } from './plan.js';
import type { SoakReport } from './report.js';
import { summarise } from './report.js';
import type { SoakConfig } from './sandbox.js';
import { clientOptions, sandboxOptions, soakInputs } from './sandbox.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = path.join(ROOT, 'bench/soak/child.ts');

export interface RunLimits {
  /** The whole run; past it the child is killed and unsettled operations count as missed. */
  deadlineMs: number;
  /** How long the child may take to exit after its last line. */
  exitGraceMs: number;
  strict: boolean;
}

interface ChildRun {
  outcomes: Outcome[];
  unhandledRejections: number;
  warnings: Record<string, number>;
  exitedOnItsOwn: boolean;
  exitCode: number | null;
  stderr: string;
}

function runChild(input: ChildInput, limits: RunLimits): Promise<ChildRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const run: ChildRun = { outcomes: [], unhandledRejections: 0, warnings: {}, exitedOnItsOwn: false, exitCode: null, stderr: '' };
  let done = false;
  let killed = false;
  const kill = (): void => {
    killed = true;
    child.kill('SIGKILL');
  };
  const deadline = setTimeout(kill, limits.deadlineMs);
  let grace: ReturnType<typeof setTimeout> | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    if (run.stderr.length < 20_000) run.stderr += chunk.toString();
  });
  createInterface({ input: child.stdout }).on('line', (text) => {
    let line: ChildLine;
    try {
      line = JSON.parse(text) as ChildLine;
    } catch {
      return;
    }
    if (line.type === 'outcome') {
      const { type: _type, ...outcome } = line;
      run.outcomes.push(outcome);
    } else {
      done = true;
      run.unhandledRejections = line.unhandledRejections;
      run.warnings = line.warnings;
      grace = setTimeout(kill, limits.exitGraceMs);
    }
  });
  child.stdin.end(JSON.stringify(input));
  return new Promise((resolve) => {
    // 'close', not 'exit': by then every line the child printed has been read.
    child.once('close', (code) => {
      clearTimeout(deadline);
      if (grace) clearTimeout(grace);
      run.exitCode = code;
      run.exitedOnItsOwn = done && !killed && code === 0;
      resolve(run);
    });
  });
}

export async function runSoak(config: SoakConfig, limits: RunLimits): Promise<SoakReport & { stderr: string }> {
  const started = performance.now();
  const sandbox = await startSandbox(sandboxOptions(config));
  try {
    const operations = planOperations(config.operations, config.seed, soakInputs(sandbox));
    const child = await runChild(
      {
        client: clientOptions(config, sandbox),
        operations,
        // 100 ms: the floor a client may poll at without busy-looping.
        wait: { pollIntervalMs: 100, maxPollIntervalMs: 200, timeoutMs: 20_000 },
        concurrency: config.concurrency,
      },
      limits,
    );
    const journal = (await (await fetch(`${sandbox.url}/_sandbox/commits`)).json()) as {
      commits: Record<string, { count: number }>;
    };
    const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as { counters: Record<string, number> };
    const commits = Object.fromEntries(Object.entries(journal.commits).map(([id, entry]) => [id, entry.count]));
    const report = summarise({
      config: { ...config },
      operations,
      outcomes: child.outcomes,
      commits,
      counters: stats.counters,
      unhandledRejections: child.unhandledRejections,
      warnings: child.warnings,
      exitedOnItsOwn: child.exitedOnItsOwn,
      exitCode: child.exitCode,
      elapsedMs: Math.round(performance.now() - started),
      strict: limits.strict,
    });
    return { ...report, stderr: child.stderr };
  } finally {
    await sandbox.close();
  }
}
