/** The report page's stylesheet, inlined into every page (system fonts only: nothing is fetched). */
export const PAGE_CSS = `
:root { --ink: #1d2330; --muted: #5b6472; --line: #e3e6eb; --accent: #4e79a7; --warn: #fff4d6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f6f7f9; }
header { background: white; border-bottom: 1px solid var(--line); padding: 20px 32px 12px; position: sticky; top: 0; z-index: 1; }
h1 { margin: 0 0 4px; font-size: 22px; }
.subtitle { margin: 0; color: var(--muted); }
nav { margin-top: 10px; display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a { color: var(--accent); text-decoration: none; font-weight: 600; font-size: 13px; }
nav a:hover { text-decoration: underline; }
.agents { margin-top: 8px; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); }
.agent { display: inline-flex; align-items: center; gap: 5px; }
.swatch { width: 12px; height: 12px; border-radius: 3px; display: inline-block; }
main { padding: 8px 32px 32px; max-width: 1200px; }
section { background: white; border: 1px solid var(--line); border-radius: 8px; padding: 16px 24px; margin: 18px 0; scroll-margin-top: 130px; }
h2 { margin: 0 0 6px; font-size: 18px; }
.intro { color: var(--muted); margin: 0 0 10px; }
.note { background: #f0f3f7; border-left: 3px solid #9aa5b4; padding: 6px 10px; margin: 8px 0; }
.warnings { background: var(--warn); border: 1px solid #e8c76a; border-radius: 8px; margin: 16px 32px 0; padding: 4px 16px; max-width: 1136px; }
.figures { display: flex; flex-wrap: wrap; gap: 12px; margin: 10px 0; }
.figure { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.figure .value { font-size: 20px; font-weight: 700; }
.figure .label { color: var(--muted); font-size: 12px; }
figure.chart { margin: 14px 0; overflow-x: auto; }
figure.chart svg { max-width: none; height: auto; }
figcaption { color: var(--muted); font-style: italic; margin-top: 4px; max-width: 760px; }
table { border-collapse: collapse; margin: 12px 0; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f6f7f9; }
td:first-child { white-space: nowrap; }
pre { background: #1d2330; color: #e8ecf2; padding: 10px 14px; border-radius: 6px; overflow-x: auto; font-size: 12.5px; }
.code-label { margin: 10px 0 2px; font-weight: 600; }
details summary { cursor: pointer; color: var(--accent); margin: 8px 0; }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 24px; }
`;
