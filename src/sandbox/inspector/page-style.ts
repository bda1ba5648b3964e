/** The inspector page's stylesheet: system fonts, WCAG AA contrast, visible focus, no external asset. */
export const INSPECTOR_STYLE = String.raw`
:root { color-scheme: light; --fg: #1b1f24; --muted: #4a5360; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa;
  --ok: #116329; --warn: #7d4e00; --bad: #a40e26; --accent: #0550ae; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: baseline; padding: .75rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 1.15rem; margin: 0; }
h2 { font-size: 1rem; margin: 0 0 .5rem; }
h3 { font-size: .95rem; margin: .75rem 0 .25rem; }
main { display: grid; grid-template-columns: minmax(0, 8fr) minmax(0, 5fr); gap: 1rem; padding: 1rem; }
section { border: 1px solid var(--line); border-radius: 6px; padding: .75rem; min-width: 0; }
.wide { grid-column: 1 / -1; }
.muted { color: var(--muted); }
.counters { display: flex; flex-wrap: wrap; gap: .5rem; margin: 0; padding: 0; list-style: none; }
.counters li { border: 1px solid var(--line); border-radius: 6px; padding: .25rem .6rem; background: var(--bg); }
.counters strong { font-variant-numeric: tabular-nums; }
form, .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: .25rem 0 .5rem; }
label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
label.inline { flex-direction: row; align-items: center; gap: .3rem; color: var(--fg); font-size: .9rem; }
input, select, button { font: inherit; color: var(--fg); }
input, select { padding: .2rem .35rem; border: 1px solid #8c959f; border-radius: 4px; background: var(--bg); }
input[type=number] { width: 6.5rem; }
button { padding: .25rem .65rem; border: 1px solid #8c959f; border-radius: 4px; background: var(--panel); cursor: pointer; }
button:hover { background: #eaeef2; }
button:disabled { color: var(--muted); cursor: not-allowed; }
button.link { border: 0; background: none; padding: 0; color: var(--accent); text-decoration: underline; text-align: left; overflow-wrap: anywhere; }
#requests-body td:nth-child(3) { min-width: 12rem; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
table { width: 100%; border-collapse: collapse; font-size: .85rem; }
caption { text-align: left; font-size: .8rem; color: var(--muted); padding-bottom: .25rem; }
th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); position: sticky; top: 0; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { max-height: 36rem; overflow: auto; }
tr.selected { background: #ddf4ff; }
.badge { display: inline-block; border-radius: 999px; padding: 0 .45rem; font-size: .75rem; border: 1px solid currentColor; margin-right: .2rem; white-space: nowrap; }
.s-ok { color: var(--ok); } .s-warn { color: var(--warn); } .s-bad { color: var(--bad); font-weight: 600; }
pre { margin: 0; padding: .5rem; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; white-space: pre-wrap; word-break: break-word; max-height: 20rem; overflow: auto; font-size: .8rem; }
ol.attempts, ol.timeline { margin: 0; padding-left: 1.2rem; }
ol.timeline { display: flex; flex-wrap: wrap; gap: .2rem .9rem; list-style: none; padding: 0; }
ol.timeline li + li::before { content: "→ "; color: var(--muted); }
code { font-size: .8rem; word-break: break-all; }
#status { min-height: 1.4em; margin: .5rem 1rem 0; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
`;
