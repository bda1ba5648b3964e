/** The `partner-sandbox` banner names the inspector's address, and that address serves the page. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileScripts } from '../../helpers/bundle.js';
import { bannerOf } from '../helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('partner-sandbox banner', () => {
  it('prints "Inspector: http://127.0.0.1:PORT/_sandbox/" and the page answers there', async () => {
    const compiled = await compileScripts(['src/sandbox/cli.ts']);
    const child = spawn(process.execPath, [compiled.path('src/sandbox/cli.ts'), '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const out = await bannerOf(child, 15_000);
      const inspector = /^Inspector: (http:\/\/127\.0\.0\.1:\d+\/_sandbox\/) /m.exec(out)?.[1];
      expect(inspector).toBeDefined();
      const res = await fetch(inspector ?? '');
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<title>Partner sandbox inspector</title>');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
      compiled.remove();
    }
  });
});
