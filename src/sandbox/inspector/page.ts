/**
 * GET /_sandbox/: one self-contained page (inline style and script, no CDN, works offline),
 * shipped as a string so the package needs no build step or asset files at run time.
 */
import { createHash } from 'node:crypto';
import { INSPECTOR_SCRIPT } from './page-script.js';
import { INSPECTOR_STYLE } from './page-style.js';

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Only this script and this stylesheet run, and the page talks only to its own origin: even a
 * body that slipped past the page's escaping could not run script or send data elsewhere.
 */
export const INSPECTOR_CSP = [
  "default-src 'none'",
  `script-src ${sha256(INSPECTOR_SCRIPT)}`,
  `style-src ${sha256(INSPECTOR_STYLE)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const INSPECTOR_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner sandbox inspector</title>
<link rel="icon" href="data:,">
<style>${INSPECTOR_STYLE}</style>
</head>
<body>
<header>
  <h1>Partner sandbox inspector</h1>
  <span>Sandbox clock: <time id="clock"></time></span>
  <span>Feed: <span id="live">connecting…</span></span>
  <ul class="counters" id="counters" aria-label="Counters"></ul>
</header>
<p id="status" role="status" aria-live="polite" class="muted"></p>
<main>
  <section aria-labelledby="requests-heading">
    <h2 id="requests-heading">Requests</h2>
    <div class="row" role="search" aria-label="Request filters">
      <label>Route contains <input id="filter-route" type="search" placeholder="/api/v1.1/sims"></label>
      <label>Status class
        <select id="filter-class">
          <option value="">any</option><option value="2xx">2xx</option><option value="3xx">3xx</option>
          <option value="4xx">4xx</option><option value="429">429 only</option><option value="5xx">5xx</option>
        </select>
      </label>
      <label class="inline"><input id="filter-failures" type="checkbox"> Only failures</label>
      <span id="requests-shown" class="muted"></span>
    </div>
    <div class="scroll">
      <table>
        <caption>Newest first. Choose a path to see headers and bodies, masked as the request log masks them.</caption>
        <thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th>
          <th scope="col">Latency</th><th scope="col">Marks</th><th scope="col" title="window, requests left / limit, seconds until it resets">Rate limit</th></tr></thead>
        <tbody id="requests-body"></tbody>
      </table>
    </div>
  </section>
  <section id="detail" aria-label="Request details">
    <h2>Request details</h2>
    <p class="muted">Choose a request to see its headers and bodies.</p>
  </section>
  <section class="wide" aria-labelledby="controls-heading">
    <h2 id="controls-heading">Controls</h2>
    <form id="force-form" aria-label="Force the next answers of a route">
      <label>Method
        <select id="force-method"><option>*</option><option>GET</option><option>POST</option><option>PUT</option><option>PATCH</option><option>DELETE</option></select>
      </label>
      <label>Path <input id="force-path" required value="/api/v1.1/sims" size="28"></label>
      <label>Status <input id="force-status" type="number" min="100" max="599" value="503"></label>
      <label>Error code <input id="force-code" placeholder="default for the status" size="18"></label>
      <label>Delay (ms) <input id="force-delay" type="number" min="0" max="600000"></label>
      <label>Next N answers <input id="force-times" type="number" min="1" value="1"></label>
      <label class="inline"><input id="force-reset" type="checkbox"> Reset the socket instead</label>
      <button type="submit">Force</button>
      <button type="button" id="force-clear">Clear forced answers</button>
    </form>
    <ul id="rules" aria-label="Forced answers pending"></ul>
    <form id="time-form" aria-label="Advance the sandbox clock">
      <label>Advance clock by (ms) <input id="advance-ms" type="number" min="0" value="60000"></label>
      <button type="submit">Advance clock</button>
      <button type="button" id="reset">Reset sandbox to its seed</button>
    </form>
  </section>
  <section class="wide" aria-labelledby="deliveries-heading">
    <h2 id="deliveries-heading">Webhook deliveries</h2>
    <div class="scroll">
      <table>
        <caption>Newest first: every attempt with its answer, latency and signature header.</caption>
        <thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">Target URL</th><th scope="col">Status</th>
          <th scope="col">Attempts</th><th scope="col">Next retry</th><th scope="col">Registration</th><th scope="col">Action</th></tr></thead>
        <tbody id="deliveries-body"></tbody>
      </table>
    </div>
  </section>
  <section class="wide" aria-labelledby="transactions-heading">
    <h2 id="transactions-heading">Transactions</h2>
    <div class="scroll">
      <table>
        <caption>Newest first: each async operation's states on the sandbox clock, with its result or error.</caption>
        <thead><tr><th scope="col">Transaction</th><th scope="col">Kind</th><th scope="col">Timeline</th><th scope="col">Result or error</th></tr></thead>
        <tbody id="transactions-body"></tbody>
      </table>
    </div>
  </section>
</main>
<script>${INSPECTOR_SCRIPT}</script>
</body>
</html>
`;
