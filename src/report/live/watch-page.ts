import { esc } from '../html/page';
import { PAGE_CSS } from '../html/page-css';

/** What one page of the watch server shows: a run, or an ablation's table of runs. */
export interface WatchPageInput {
  readonly mode: 'run' | 'ablation';
  readonly title: string;
  /** For a run inside an ablation: its directory name (the page's `?run=`). */
  readonly run?: string;
  /** Echoed into the script's URL when the page was opened with it. */
  readonly token?: string | null;
}

const LIVE_CSS = `
.live { display: flex; flex-wrap: wrap; gap: 10px 14px; align-items: center; margin-top: 10px; }
.bar { flex: 1 1 320px; height: 14px; background: #e3e6eb; border-radius: 7px; overflow: hidden; }
.bar > div { height: 100%; width: 0; background: var(--accent); transition: width .3s; }
.status { font-size: 12px; font-weight: 600; padding: 2px 8px; border-radius: 10px; background: #e3e6eb; }
.status.on { background: #d8f0dc; }
.status.off { background: #fde2e1; }
.status.done { background: #dde6f5; }
#problems li { font-family: ui-monospace, monospace; font-size: 12px; }
#ablation tr { cursor: pointer; }
#ablation tr:hover td { background: #eef3fa; }
`;

/**
 * The watch server's HTML page: the header with the live figures (filled by the script from the
 * `figures` messages), and a `<main>` the script fills with the charts the server renders — the
 * report's own sections. Everything is served by the watch server; nothing else is fetched.
 */
export function watchPage(p: WatchPageInput): string {
  const q = new URLSearchParams();
  if (p.token) q.set('token', p.token);
  const script = `/watch.js${q.size ? `?${q.toString()}` : ''}`;
  const back = p.run ? `<a href="/${p.token ? `?token=${encodeURIComponent(p.token)}` : ''}" id="back">← all runs</a> ` : '';
  const live = p.mode === 'run'
    ? `<div class="live"><span class="status" id="conn">connecting</span><div class="bar"><div id="bar"></div></div><span id="progress">–</span></div>
<div class="figures" id="figures"></div>`
    : '<div class="live"><span class="status" id="conn">connecting</span><span id="progress">–</span></div>';
  const main = p.mode === 'run'
    ? `<section id="problems-section"><h2>Failures and fallbacks</h2><p class="intro">Tasks that failed (never graded), evolve stages that failed, and the fallbacks the loop took instead of a model's answer.</p><div class="figures" id="problem-figures"></div><ul id="problems"></ul></section>
<div id="warnings"></div><div id="view"><p class="note">Drawing the charts…</p></div>`
    : `<div id="warnings"></div><div id="view"><p class="note">Drawing the charts…</p></div>
<section id="runs-section"><h2>Runs</h2><p class="intro">One row per run of the ablation; click a row to watch that run.</p><table id="ablation"><thead><tr><th>run</th><th>state</th><th>tasks</th><th>accuracy so far</th></tr></thead><tbody></tbody></table></section>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${esc(p.title)}</title>
<style>${PAGE_CSS}${LIVE_CSS}</style>
</head>
<body data-mode="${p.mode}" data-run="${esc(p.run ?? '')}">
<header><h1>${back}<span id="title">${esc(p.title)}</span></h1><p class="subtitle" id="subtitle">live · events pushed as they are committed</p>${live}</header>
<main>
${main}
</main>
<footer>evochamber watch: the charts are the report's, drawn from the events so far.</footer>
<script src="${esc(script)}"></script>
</body>
</html>
`;
}

/**
 * The page's script (served as /watch.js): one EventSource to the server. `ev` messages are the
 * committed events, each with its seq as the SSE id, so a reconnect resumes after the last one it
 * got; `figures` and `view` replace the live figures and the charts; `rows` the ablation's table.
 * `window.__watch` exposes what it received (seqs, gaps, duplicates) for tests and the curious.
 */
export const WATCH_CLIENT_JS = `(() => {
  'use strict';
  const body = document.body;
  const token = new URLSearchParams(location.search).get('token');
  const withToken = (params) => { if (token) params.set('token', token); const s = params.toString(); return s ? '?' + s : ''; };
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
  const fmt = (x, d = 3) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
  const dur = (s) => (s === null || s === undefined ? '–' : s < 90 ? Math.round(s) + ' s' : s < 5400 ? Math.round(s / 60) + ' min' : (s / 3600).toFixed(1) + ' h');
  const count = (n) => (n >= 1e6 ? (n / 1e6).toFixed(2) + 'M' : n >= 1e4 ? (n / 1e3).toFixed(1) + 'k' : String(n));
  const state = window.__watch = { mode: body.dataset.mode, seqs: [], lastSeq: null, events: 0, gaps: 0, duplicates: 0, figures: null, views: 0, rows: null, opens: 0 };
  // The pill says the connection while the run (or sweep) goes on, and how it ended once it has.
  const conn = (on, text) => { if (state.ended) return; const c = $('conn'); c.textContent = text; c.className = 'status ' + (on ? 'on' : 'off'); };
  const ended = (how) => { state.ended = how; const c = $('conn'); c.textContent = how; c.className = 'status done'; };
  const live = () => { if (!state.ended) return; state.ended = null; conn(true, 'live'); };
  // The progress line, and when the charts were drawn at another count, that count: it is the N of their titles.
  const progressLine = () => {
    const f = state.figures;
    if (!f) return;
    const planned = f.plannedTasks;
    const drawn = state.viewTasks !== undefined && state.viewTasks !== f.tasksDone ? ' · charts after ' + state.viewTasks + ' tasks' : '';
    $('progress').textContent = f.tasksDone + (planned ? ' / ' + planned : '') + ' tasks · ' + f.state + (f.etaSeconds ? ' · eta ' + dur(f.etaSeconds) : '') + drawn;
  };
  const card = (label, value) => { const f = el('div', undefined, 'figure'); f.append(el('div', value, 'value'), el('div', label, 'label')); return f; };

  function showFigures(f) {
    state.figures = f;
    const planned = f.plannedTasks;
    $('bar').style.width = planned ? Math.min(100, 100 * f.tasksDone / planned) + '%' : '0';
    progressLine();
    $('progress').dataset.done = String(f.tasksDone);
    if (f.state === 'running') live(); else ended(f.state);
    const cards = [card('accuracy so far', fmt(f.accuracy)), card('tasks / s', fmt(f.tasksPerSecond, 2)), card('eta', f.state === 'running' ? dur(f.etaSeconds) : f.state),
      card('tokens', count(f.tokens)), card('tokens / s', f.tokensPerSecond === null ? '–' : count(Math.round(f.tokensPerSecond))),
      card('in flight / window', f.inFlight + ' / ' + (f.window ?? 'auto')), card('window utilization', f.windowUtilization === null ? '–' : (100 * f.windowUtilization).toFixed(0) + ' %')];
    $('figures').replaceChildren(...cards);
    const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
    const by = (o) => Object.entries(o).map(([k, v]) => k + ' ' + v).join(', ') || 'none';
    $('problem-figures').replaceChildren(card('failed tasks (' + by(f.failures) + ')', sum(f.failures)), card('failed evolve stages (' + by(f.evolveFailures) + ')', sum(f.evolveFailures)), card('fallbacks (' + by(f.fallbacks) + ')', sum(f.fallbacks)));
    $('problems').replaceChildren(...f.recentProblems.map((p) => el('li', p)));
  }

  function onEvent(m) {
    const seq = Number(m.lastEventId);
    if (state.lastSeq !== null) { if (seq <= state.lastSeq) state.duplicates++; else if (seq !== state.lastSeq + 1) state.gaps++; }
    state.lastSeq = seq;
    state.events++;
    if (state.seqs.length < 100000) state.seqs.push(seq);
  }

  function runPage() {
    const run = body.dataset.run;
    const es = new EventSource('/events' + withToken(new URLSearchParams(run ? { run } : {})));
    es.onopen = () => { state.opens++; conn(true, 'live'); };
    es.onerror = () => conn(false, es.readyState === 2 ? 'closed' : 'reconnecting');
    es.addEventListener('hello', (m) => { state.lastSeq = JSON.parse(m.data).seq; state.helloSeq = state.lastSeq; });
    es.addEventListener('ev', onEvent);
    es.addEventListener('figures', (m) => showFigures(JSON.parse(m.data)));
    // The run is over and the server is going: keep how it ended, and stop reconnecting.
    es.addEventListener('end', (m) => { state.end = JSON.parse(m.data).state; ended(state.end); es.close(); });
    es.addEventListener('waiting', () => { $('progress').textContent = 'waiting for the run to start'; });
    es.addEventListener('problem', (m) => { $('warnings').replaceChildren(el('p', JSON.parse(m.data).message, 'note')); });
    es.addEventListener('view', (m) => {
      const v = JSON.parse(m.data);
      state.views++;
      state.viewSeq = v.seq;
      state.viewTasks = v.tasksDone;
      progressLine();
      const title = 'EvoChamber watch — ' + v.title + (body.dataset.run ? ' (' + body.dataset.run + ')' : '');
      if (document.title !== title) { document.title = title; $('title').textContent = title; }
      const w = $('warnings');
      w.className = v.warnings.length ? 'warnings' : '';
      w.replaceChildren(...v.warnings.map((x) => el('p', '⚠ ' + x)));
      $('view').innerHTML = v.html;
    });
  }

  function ablationPage() {
    const es = new EventSource('/ablation/events' + withToken(new URLSearchParams()));
    es.onopen = () => { state.opens++; conn(true, 'live'); };
    es.onerror = () => conn(false, es.readyState === 2 ? 'closed' : 'reconnecting');
    es.addEventListener('view', (m) => {
      const v = JSON.parse(m.data);
      state.views++;
      state.viewTasks = v.tasksDone;
      $('view').innerHTML = v.html;
    });
    es.addEventListener('problem', (m) => { $('warnings').replaceChildren(el('p', JSON.parse(m.data).message, 'note')); });
    es.addEventListener('rows', (m) => {
      const d = JSON.parse(m.data);
      state.rows = d.rows;
      if (d.finished) ended('finished'); else live();
      $('progress').textContent = d.rows.length + (d.planned ? ' of ' + d.planned : '') + ' runs started · ' + d.rows.filter((r) => r.state === 'finished').length + ' finished';
      $('ablation').tBodies[0].replaceChildren(...d.rows.map((r) => {
        const tr = el('tr');
        tr.dataset.run = r.name;
        const tasks = r.tasksDone + (r.plannedTasks ? ' / ' + r.plannedTasks : '');
        tr.append(el('td', r.name), el('td', r.state), el('td', tasks, 'num'), el('td', fmt(r.accuracy), 'num'));
        tr.onclick = () => { location.href = '/' + withToken(new URLSearchParams({ run: r.name })); };
        return tr;
      }));
    });
  }

  if (state.mode === 'ablation') ablationPage(); else runPage();
})();
`;
