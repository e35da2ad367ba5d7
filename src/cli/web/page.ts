/**
 * The `agentwrap dashboard` page, pure: one self-contained HTML document (inline CSS, one inline
 * script carrying the server's CSP nonce, the first session list embedded as JSON), and the
 * per-session timeline SVG drawn with the eval report's band drawing (cli/render/eval-page.ts).
 *
 * The page writes every string that came from a record or a screen with textContent; the only
 * markup it inserts is the timeline SVG this module drew (escaped by render-eval-page).
 */
import type { StateHistorySnapshot } from '../../core/records/state-history.js';
import { forHtml } from '../../core/text/sanitize.js';
import { jsonForScript, renderStateTimeline } from '../render/eval-page.js';
import type { StatusJson } from '../render/status.js';

export interface DashboardPageInput {
  /** The CSP nonce of this response's script. */
  readonly nonce: string;
  /** The list as it stands, drawn before the event stream connects. */
  readonly initial: StatusJson;
  /** Timelines already fetched, by session key (`since`: the record's state_since they were drawn at). */
  readonly timelines?: Readonly<Record<string, { readonly svg: string; readonly since: number }>>;
  /** The most urgent session's screen, already fetched. */
  readonly screen?: { readonly key: string; readonly rows: readonly string[]; readonly title: string | null };
}

function clockTime(ms: number, withSeconds: boolean): string {
  const iso = new Date(ms).toISOString();
  return withSeconds ? iso.slice(11, 19) : iso.slice(11, 16);
}

/** The session's last hour (or since it started) as a timeline band, ticks in UTC clock time. */
export function renderHistoryTimeline(history: StateHistorySnapshot & { readonly now: number }): string {
  const durationS = Math.max(0.001, (history.now - history.since) / 1000);
  return renderStateTimeline({
    durationS,
    initial: history.initial ?? 'none',
    changes: history.transitions.map((transition) => ({ t: (transition.t - history.since) / 1000, state: transition.to })),
    label: 'state',
    tickLabel: (t) => clockTime(history.since + t * 1000, durationS < 600),
  });
}

export function renderDashboardPage(input: DashboardPageInput): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>agentwrap dashboard</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>agentwrap dashboard</h1><span id="rollup"></span><span id="counts"></span><span id="conn" class="conn">connecting…</span></header>
<p id="warnings" class="warnings"></p>
<main>
<section class="list">
<table id="sessions"><thead><tr><th>state</th><th>for</th><th>agent</th><th>session</th><th>cwd</th><th>title</th><th class="tl">last hour</th></tr></thead><tbody></tbody></table>
<p id="empty" class="empty" hidden>No live agent sessions.</p>
</section>
<section id="preview" class="preview"><h2 id="preview-title">Select a session to see its screen</h2>
<div id="act" class="act" hidden><p id="question" class="question"></p><div id="options"></div>
<form id="prompt-form" hidden><input id="prompt" autocomplete="off" placeholder="Type a prompt for this agent"><button id="send" type="submit">Send</button></form>
<p id="act-result" class="act-result"></p></div>
<pre id="screen"></pre></section>
</main>
<script type="application/json" id="initial">${jsonForScript(input.initial)}</script>
<script type="application/json" id="first-paint">${jsonForScript({ timelines: input.timelines ?? {}, screen: input.screen ?? null })}</script>
<script nonce="${forHtml(input.nonce)}">${SCRIPT}</script>
</body>
</html>
`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#111827;background:#f9fafb}
header{display:flex;gap:16px;align-items:baseline;padding:10px 20px;background:#111827;color:#f9fafb}
h1{font-size:18px;margin:0}h2{font-size:14px;margin:0 0 6px}
#rollup{font-weight:bold}.conn{margin-left:auto;color:#9ca3af;font-size:12px}
.warnings{color:#991b1b;margin:6px 20px}.warnings:empty{display:none}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px;padding:12px 20px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
th,td{border-bottom:1px solid #e5e7eb;padding:4px 6px;text-align:left;vertical-align:middle;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:16em}
th{background:#f3f4f6;font-weight:600}
tbody tr{cursor:pointer}tbody tr:hover{background:#f3f4f6}tbody tr.selected{background:#e0e7ff}
td.tl{width:40%;min-width:220px;max-width:none;padding:0 4px}
td.tl svg{width:100%;height:auto;display:block}
.state{display:inline-block;min-width:5.5em;padding:1px 6px;border-radius:3px;color:#fff;font-weight:600;text-align:center}
.s-blocked{background:#ef4444}.s-done{background:#16a34a}.s-working{background:#3b82f6}.s-idle{background:#22c55e}.s-unknown{background:#9ca3af}.s-other{background:#d1d5db;color:#111827}
.stuck{color:#a855f7;font-weight:bold;margin-left:4px}
.cause{color:#dc2626;margin-left:4px}
.preview{background:#fff;padding:8px;border:1px solid #e5e7eb;min-width:0}
pre#screen{background:#111827;color:#e5e7eb;padding:8px;margin:0;overflow:auto;font:12px/1.25 ui-monospace,monospace;min-height:12em;white-space:pre}
.band-name{font-size:12px;fill:#374151}.tick{font-size:10px;fill:#4b5563}line.axis{stroke:#6b7280;stroke-width:1}
.empty{color:#6b7280}
.act{margin:0 0 8px}.question{font-weight:600;margin:0 0 6px}#options button{margin:0 6px 6px 0}
#prompt-form{display:flex;gap:6px}#prompt{flex:1;font:inherit;padding:3px 6px}
.act-result{font-size:12px;color:#374151;margin:4px 0 0}.act-result.err{color:#991b1b}
`;

/** The answer buttons and the prompt box, inside SCRIPT's closure (it reads view, selected and url). */
const ACT_SCRIPT = `
  // Answer and prompt (cli/web/actions.ts): POSTed as JSON to this page's own origin.
  var shownAct = '';
  function act(path, body){
    var result = document.getElementById('act-result');
    result.className = 'act-result'; result.textContent = 'sending…';
    fetch(url(path), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then(function(r){ return r.json().then(function(j){ return { ok: r.ok, j: j }; }); })
      .then(function(x){ result.className = x.ok ? 'act-result' : 'act-result err'; result.textContent = x.ok ? (x.j.label ? 'answered: ' + x.j.label : 'sent') : x.j.error; })
      .catch(function(e){ result.className = 'act-result err'; result.textContent = String(e); });
  }
  function renderAct(){
    var s = null; view.sessions.forEach(function(x){ if (x.key === selected && x.agentwrap) s = x; });
    var box = document.getElementById('act'), options = document.getElementById('options'), form = document.getElementById('prompt-form');
    var d = s && s.state === 'blocked' ? s.record.dialog : null;
    var mode = !s ? '' : d ? 'dialog ' + s.key + ' ' + d.digest : (s.state === 'idle' || s.state === 'done') ? 'prompt ' + s.key : '';
    if (mode === shownAct) return;
    shownAct = mode;
    box.hidden = mode === '';
    document.getElementById('act-result').textContent = '';
    while (options.firstChild) options.removeChild(options.firstChild);
    document.getElementById('question').textContent = d ? d.question : '';
    form.hidden = !(s && !d && mode !== '');
    if (!d) return;
    d.options.forEach(function(label, i){
      var b = document.createElement('button'); b.type = 'button'; b.id = 'option-' + (i + 1); b.textContent = (i + 1) + '. ' + label;
      b.addEventListener('click', function(){ act('/api/answer', { key: s.key, option: i + 1, digest: d.digest }); });
      options.appendChild(b);
    });
  }
  document.getElementById('prompt-form').addEventListener('submit', function(e){
    e.preventDefault();
    var input = document.getElementById('prompt');
    if (selected && input.value.trim() !== '') { act('/api/send', { key: selected, text: input.value }); input.value = ''; }
  });
`;

// Plain ES5-ish script on purpose (as the eval report's): no build step, any browser.
const SCRIPT = `
(function(){
  var token = new URLSearchParams(location.search).get('token') || '';
  function url(path, params){ var p = new URLSearchParams(params || {}); p.set('token', token); return path + '?' + p.toString(); }
  var view = JSON.parse(document.getElementById('initial').textContent);
  var clockOffset = 0;
  var selected = null;
  var timelines = {};
  var firstPaint = JSON.parse(document.getElementById('first-paint').textContent);
  Object.keys(firstPaint.timelines).forEach(function(key){ var t = firstPaint.timelines[key]; timelines[key] = { svg: t.svg, since: t.since, at: Date.now() }; });
  var tbody = document.querySelector('#sessions tbody');
  function age(ms){ var s = Math.max(0, Math.floor(ms / 1000)); if (s < 60) return s + 's'; if (s < 3600) return Math.floor(s / 60) + 'm'; if (s < 86400) return Math.floor(s / 3600) + 'h'; return Math.floor(s / 86400) + 'd'; }
  function cell(tr, cls, text){ var td = document.createElement('td'); if (cls) td.className = cls; if (text !== undefined) td.textContent = text; tr.appendChild(td); return td; }
  function render(){
    document.getElementById('rollup').textContent = 'rollup: ' + (view.rollup || '-');
    var counts = []; ['blocked','done','working','idle','unknown'].forEach(function(s){ if (view.counts[s] > 0) counts.push(view.counts[s] + ' ' + s); });
    document.getElementById('counts').textContent = counts.join(' · ');
    document.getElementById('warnings').textContent = view.warnings.join(' ');
    document.getElementById('empty').hidden = view.sessions.length > 0;
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    view.sessions.forEach(function(s){
      var tr = document.createElement('tr');
      tr.setAttribute('data-key', s.key);
      tr.setAttribute('data-state', s.state || 'other');
      if (s.key === selected) tr.className = 'selected';
      var st = cell(tr, 'state-cell');
      var pill = document.createElement('span'); pill.className = 'state s-' + (s.state || 'other'); pill.textContent = s.state || '-'; st.appendChild(pill);
      if (s.record.stuck) { var k = document.createElement('span'); k.className = 'stuck'; k.textContent = 'stuck'; st.appendChild(k); }
      if (s.agentwrap && s.record.reason) { var c = document.createElement('span'); c.className = 'cause'; c.textContent = s.record.reason + (s.record.until ? ' until ' + new Date(s.record.until).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'}) : ''); st.appendChild(c); }
      cell(tr, 'age', s.agentwrap ? age(Date.now() + clockOffset - s.record.state_since) : '-').setAttribute('data-since', s.agentwrap ? s.record.state_since : '');
      cell(tr, 'agent', s.record.source_cli);
      cell(tr, 'key', s.key);
      cell(tr, 'cwd', s.record.cwd || '-');
      cell(tr, 'title', s.agentwrap ? (s.record.title || '') : ('model ' + s.record.model + ', by ' + s.record.written_by));
      var tl = cell(tr, 'tl');
      if (timelines[s.key]) tl.innerHTML = timelines[s.key].svg;
      tr.addEventListener('click', function(){ select(s.key); });
      tbody.appendChild(tr);
    });
  }
  function tickAges(){
    document.querySelectorAll('#sessions td.age').forEach(function(td){ var since = Number(td.getAttribute('data-since')); if (since) td.textContent = age(Date.now() + clockOffset - since); });
  }
  function fetchTimeline(s){
    var wanted = s.record.state_since;
    fetch(url('/api/history', { key: s.key })).then(function(r){ return r.ok ? r.json() : null; }).then(function(h){
      if (!h) return;
      timelines[s.key] = { svg: h.svg, since: wanted, at: Date.now() };
      var td = tbody.querySelector('tr[data-key="' + CSS.escape(s.key) + '"] td.tl');
      if (td) td.innerHTML = h.svg;
    }).catch(function(){});
  }
  function refreshTimelines(){
    view.sessions.forEach(function(s){
      if (!s.agentwrap) return;
      var t = timelines[s.key];
      if (!t || t.since !== s.record.state_since || Date.now() - t.at > 60000) fetchTimeline(s);
    });
  }
  function select(key){
    selected = key;
    document.querySelectorAll('#sessions tbody tr').forEach(function(tr){ tr.className = tr.getAttribute('data-key') === key ? 'selected' : ''; });
    document.getElementById('preview-title').textContent = key;
    renderAct();
    refreshScreen();
  }
  function showScreen(key, c){
    var text = c ? c.rows.map(function(row){ return row.replace(/\\s+$/, ''); }).join('\\n').replace(/\\n+$/, '') : '(the session is gone)';
    document.getElementById('screen').textContent = text;
    document.getElementById('preview-title').textContent = key + (c && c.title ? ' — ' + c.title : '');
  }
  function refreshScreen(){
    if (!selected) return;
    var key = selected;
    fetch(url('/api/screen', { key: key })).then(function(r){ return r.ok ? r.json() : null; }).then(function(c){
      if (key === selected) showScreen(key, c);
    }).catch(function(){});
  }
${ACT_SCRIPT}  function onView(next){
    view = next;
    clockOffset = view.now - Date.now();
    render();
    renderAct();
    refreshTimelines();
    if (!selected && view.sessions.length > 0 && view.sessions[0].agentwrap) select(view.sessions[0].key);
  }
  if (firstPaint.screen) { selected = firstPaint.screen.key; showScreen(selected, firstPaint.screen); }
  onView(view);
  var stream = new EventSource(url('/events'));
  stream.addEventListener('open', function(){ document.getElementById('conn').textContent = 'live'; });
  stream.addEventListener('error', function(){ document.getElementById('conn').textContent = 'reconnecting…'; });
  stream.addEventListener('sessions', function(e){ onView(JSON.parse(e.data)); });
  setInterval(tickAges, 1000);
  setInterval(refreshScreen, 1000);
})();
`;
