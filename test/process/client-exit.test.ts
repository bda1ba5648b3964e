/**
 * A Node process that used the client exits by itself once it closed or destroyed it, with no
 * timer or socket of the client left, even while a call waited out a long Retry-After. Run as a
 * child process of plain `node` (test/helpers/server-child.ts), so in the integration tier.
 */
import { describe, expect, it } from 'vitest';
import { compileScripts } from '../helpers/bundle.js';
import { fail, ok } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';
import { runChild } from './run-child.js';

const t = useTestServer({ timeoutMs: 200 });

describe('a process using the client', () => {
  it.each(['close', 'destroy'])(
    '%s() lets a process exit promptly, with no handle left, even with a call waiting out a 30 s Retry-After',
    async (mode) => {
      t.server.on('GET /api/v1.1/ping', ok({ pong: true }));
      t.server.on('GET /api/v1.1/busy', fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '30' } }));
      const compiled = await compileScripts(['test/helpers/server-child.ts']);
      // The child exits on its own, which it could not do before the 30 s Retry-After if a timer
      // or socket of the client were left: it is killed well before that wait would end.
      const {
        code,
        stdout: output,
        stderr: errors,
      } = await runChild(compiled.path('test/helpers/server-child.ts'), { CHILD_BASE_URL: t.server.url, CHILD_MODE: mode }, 15_000);
      compiled.remove();
      expect(errors).toBe('');
      expect(code).toBe(0);
      const report = JSON.parse(output.trim()) as { handles: string[]; waitingOutcome: string };
      expect(report.handles).toEqual([]);
      expect(report.waitingOutcome).toBe('ClientClosedError');
    },
  );
});
