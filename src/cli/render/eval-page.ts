/**
 * The `agentwrap eval --report FILE.html` page: per recording, the label band above the
 * published band, colored by state, with labeled changes, misses and spurious transitions
 * marked on a time axis; clicking a moment shows the screen text then. Pure: data in, one
 * self-contained HTML string out — inline CSS, inline script, data embedded as JSON, nothing
 * fetched at view time.
 */
import type { Label, LabelState } from '../../core/recordings/labels.js';
import { forHtml, forJson } from '../../core/text/sanitize.js';
import {
  analyzeRecording,
  type FileScore,
  type LabeledChange,
  type PublishedTransition,
  type ScoreSummary,
  type ScoredClass,
  type SpuriousTransition,
} from '../../core/recordings/score.js';

/** The viewport text at one moment of a recording, captured by the caller during replay. */
export interface ScreenSnapshot {
  /** Seconds since the start of the recording. */
  readonly t: number;
  readonly text: string;
}

export interface EvalPageRecording {
  readonly score: FileScore;
  readonly labels: readonly Label[];
  readonly published: readonly PublishedTransition[];
  readonly durationS: number;
  /** In time order; the page shows the last one at or before the clicked moment. */
  readonly snapshots: readonly ScreenSnapshot[];
}

export interface EvalPageOptions {
  readonly title?: string;
  readonly total?: ScoreSummary;
}

type BandState = ScoredClass | 'done' | LabelState | 'none';

const COLORS: Readonly<Record<string, string>> = {
  working: '#3b82f6',
  blocked: '#ef4444',
  idle: '#22c55e',
  done: '#22c55e',
  unknown: '#9ca3af',
  stuck: '#a855f7',
  uncertain: 'url(#hatch)',
  none: '#f3f4f6',
};
const LEGEND: readonly (readonly [string, string])[] = [
  ['working', COLORS['working'] ?? ''],
  ['blocked', COLORS['blocked'] ?? ''],
  ['idle / done', COLORS['idle'] ?? ''],
  ['unknown', COLORS['unknown'] ?? ''],
  ['stuck', COLORS['stuck'] ?? ''],
  ['uncertain (not scored)', 'repeating-linear-gradient(45deg,#d1d5db 0 3px,#f9fafb 3px 6px)'],
  ['no label yet (not scored)', '#f3f4f6'],
];

/** The SVG's coordinate system: band names on the left, the plotted time span on the right. */
const VIEW_WIDTH = 1000;
const PLOT_LEFT = 80;
const PLOT_RIGHT = 985;
const LABEL_BAND_Y = 18;
const PUBLISHED_BAND_Y = 58;
const BAND_HEIGHT = 30;
const AXIS_Y = 96;
const VIEW_HEIGHT = 118;

export function renderEvalPage(recordings: readonly EvalPageRecording[], options: EvalPageOptions = {}): string {
  const title = options.title ?? 'agentwrap eval report';
  const sections = recordings.map((recording, index) => renderRecording(recording, index)).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${forHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs><pattern id="hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f9fafb"/><rect width="3" height="6" fill="#d1d5db"/></pattern></defs></svg>
<h1>${forHtml(title)}</h1>
${options.total === undefined ? '' : `<p class="total"><b>Total</b> ${renderMetrics(options.total)}</p>`}
<p class="legend">${LEGEND.map(([name, color]) => `<span><i style="background:${color}"></i>${forHtml(name)}</span>`).join('')}
<span><b class="mark-change">│</b>labeled change</span><span><b class="mark-change">▲</b>detected</span><span><b class="mark-miss">✕</b>missed change</span><span><b class="mark-spurious">▼</b>spurious transition</span></p>
${recordings.length === 0 ? '<p>No labeled recordings.</p>' : sections}
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function renderRecording(recording: EvalPageRecording, index: number): string {
  const { score } = recording;
  const duration = Math.max(recording.durationS, 0.001);
  const analysis = analyzeRecording({
    file: score.file,
    agent: score.agent,
    labels: recording.labels,
    published: recording.published,
    durationS: recording.durationS,
  });
  const x = (t: number): number => PLOT_LEFT + (Math.min(Math.max(t, 0), duration) / duration) * (PLOT_RIGHT - PLOT_LEFT);

  const labelSpans = spansOf(
    recording.labels.map((label) => ({ t: label.t, state: label.state as BandState })),
    duration,
    'none',
  );
  const publishedSpans = spansOf(
    [...recording.published]
      .sort((a, b) => a.t - b.t)
      .map((transition) => ({ t: transition.t, state: (transition.stuck ? 'stuck' : transition.state) as BandState })),
    duration,
    'unknown',
  );

  const band = (spans: readonly Span[], y: number, kind: string): string => renderBand(spans, y, kind, x, seconds);

  const data = {
    duration,
    snapshots: [...recording.snapshots].sort((a, b) => a.t - b.t),
    labels: recording.labels.map((label) => ({ t: label.t, state: label.state })),
    published: [...recording.published]
      .sort((a, b) => a.t - b.t)
      .map((transition) => ({
        t: transition.t,
        state: transition.stuck ? `${transition.state} (stuck)` : transition.state,
        winner: transition.winner ?? null,
        rule_id: transition.rule_id ?? null,
      })),
    initialT: analysis.changes.find((change) => change.detectedT === undefined)?.labelT ?? 0,
  };

  return `<section class="recording" id="rec-${index}" data-index="${index}">
<h2>${forHtml(score.file)} <small>${forHtml(score.agent)}</small></h2>
<p class="metrics">${renderMetrics(score)}</p>
<svg class="timeline" viewBox="0 0 ${VIEW_WIDTH} ${VIEW_HEIGHT}" role="img" aria-label="timeline of ${forHtml(score.file)}">
<text class="band-name" x="4" y="${LABEL_BAND_Y + 20}">labels</text>
<text class="band-name" x="4" y="${PUBLISHED_BAND_Y + 20}">published</text>
<g class="band band-labels">${band(labelSpans, LABEL_BAND_Y, 'label')}</g>
<g class="band band-published">${band(publishedSpans, PUBLISHED_BAND_Y, 'published')}</g>
<line class="cursor" x1="${PLOT_LEFT}" x2="${PLOT_LEFT}" y1="8" y2="${AXIS_Y}" />
${renderChangeMarks(analysis.changes, x)}
${renderSpuriousMarks(analysis.spurious, x)}
${renderAxis(duration, x)}
</svg>
${renderChangeTable(analysis.changes)}
<div class="moment"><div class="moment-head">Click the timeline or a change to see the screen. <span class="at"></span></div><pre class="screen"></pre></div>
<script type="application/json" class="report-data">${jsonForScript(data)}</script>
</section>`;
}

function renderMetrics(summary: ScoreSummary): string {
  const percent = (value: number | null): string => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
  const ms = (value: number | null): string => (value === null ? '–' : `${value} ms`);
  const perState = (['working', 'blocked', 'idle'] as const)
    .map((state) => {
      const entry = summary.per_state[state];
      return `${state} P ${percent(entry.precision)} R ${percent(entry.recall)}`;
    })
    .join(' · ');
  return [
    `accuracy <b>${percent(summary.accuracy)}</b> over ${summary.samples} samples`,
    `latency p50 ${ms(summary.latency_ms.p50)}, p95 ${ms(summary.latency_ms.p95)}, max ${ms(summary.latency_ms.max)}`,
    `missed <b>${summary.missed}</b> of ${summary.changes} changes`,
    `spurious <b>${summary.spurious_transitions}</b>`,
    perState,
  ]
    .map((part) => `<span>${part}</span>`)
    .join('');
}

function renderChangeMarks(changes: readonly LabeledChange[], x: (t: number) => number): string {
  return changes
    .map((change) => {
      const name = `${change.from} → ${change.to} at ${seconds(change.labelT)}`;
      const start = `<line class="change" x1="${fmt(x(change.startT))}" x2="${fmt(x(change.startT))}" y1="12" y2="${PUBLISHED_BAND_Y + BAND_HEIGHT + 4}"><title>${forHtml(`${name}, changed from ${seconds(change.startT)}`)}</title></line>`;
      if (change.detectedT === undefined) {
        return `${start}<text class="miss" x="${fmt(x(change.labelT))}" y="${PUBLISHED_BAND_Y + BAND_HEIGHT / 2 + 6}" text-anchor="middle">✕<title>${forHtml(`missed: ${name}`)}</title></text>`;
      }
      return `${start}<path class="detected" d="M${fmt(x(change.detectedT))} ${PUBLISHED_BAND_Y + BAND_HEIGHT} l-4 7 h8 z"><title>${forHtml(`${name} detected after ${change.latencyMs ?? 0} ms`)}</title></path>`;
    })
    .join('');
}

function renderSpuriousMarks(spurious: readonly SpuriousTransition[], x: (t: number) => number): string {
  return spurious
    .map(
      (mark) =>
        `<path class="spurious" d="M${fmt(x(mark.t))} ${PUBLISHED_BAND_Y - 1} l-5 -8 h10 z"><title>${forHtml(`spurious: ${mark.published} during ${mark.label} at ${seconds(mark.t)}`)}</title></path>`,
    )
    .join('');
}

function renderBand(spans: readonly Span[], y: number, kind: string, x: (t: number) => number, when: (t: number) => string): string {
  return spans
    .map(
      (span) =>
        `<rect class="seg ${kind}" x="${fmt(x(span.from))}" y="${y}" width="${fmt(Math.max(x(span.to) - x(span.from), 0.5))}" height="${BAND_HEIGHT}" fill="${COLORS[span.state] ?? '#000'}"><title>${forHtml(`${kind} ${span.state} ${when(span.from)}–${when(span.to)}`)}</title></rect>`,
    )
    .join('');
}

function renderAxis(duration: number, x: (t: number) => number, axisY = AXIS_Y, label: (t: number, step: number) => string = formatTick): string {
  const step = niceStep(duration / 10);
  const ticks: string[] = [`<line class="axis" x1="${PLOT_LEFT}" x2="${PLOT_RIGHT}" y1="${axisY}" y2="${axisY}"/>`];
  for (let index = 0; index * step <= duration + 1e-9; index += 1) {
    const t = index * step;
    ticks.push(
      `<line class="axis" x1="${fmt(x(t))}" x2="${fmt(x(t))}" y1="${axisY}" y2="${axisY + 4}"/><text class="tick" x="${fmt(x(t))}" y="${axisY + 15}" text-anchor="middle">${forHtml(label(t, step))}</text>`,
    );
  }
  return ticks.join('');
}

/** A published-state timeline (one band and a time axis) for `agentwrap dashboard`. */
export interface StateTimelineInput {
  /** Seconds the band spans. */
  readonly durationS: number;
  /** The state before the first change; `none` when not known. */
  readonly initial: string;
  /** In time order; `t` in seconds from the band's start. */
  readonly changes: readonly { readonly t: number; readonly state: string; readonly stuck?: boolean }[];
  readonly label: string;
  /** Axis tick text for `t` seconds from the start (default: seconds and minutes from the start). */
  readonly tickLabel?: (t: number, step: number) => string;
}

const TIMELINE_BAND_Y = 4;
const TIMELINE_AXIS_Y = TIMELINE_BAND_Y + BAND_HEIGHT + 4;
const TIMELINE_HEIGHT = TIMELINE_AXIS_Y + 20;

/** The eval report's band drawing, alone: the dashboard's per-session timeline of the last hour. */
export function renderStateTimeline(input: StateTimelineInput): string {
  const duration = Math.max(input.durationS, 0.001);
  const x = (t: number): number => PLOT_LEFT + (Math.min(Math.max(t, 0), duration) / duration) * (PLOT_RIGHT - PLOT_LEFT);
  const label = input.tickLabel ?? formatTick;
  const spans = spansOf(
    input.changes.map((change) => ({ t: change.t, state: (change.stuck === true ? 'stuck' : change.state) as BandState })),
    duration,
    input.initial as BandState,
  );
  return `<svg class="timeline" viewBox="0 0 ${VIEW_WIDTH} ${TIMELINE_HEIGHT}" role="img" aria-label="${forHtml(input.label)}">
<text class="band-name" x="4" y="${TIMELINE_BAND_Y + 20}">${forHtml(input.label)}</text>
<g class="band band-published">${renderBand(spans, TIMELINE_BAND_Y, 'published', x, (t) => label(t, 1))}</g>
${renderAxis(duration, x, TIMELINE_AXIS_Y, label)}
</svg>`;
}

function renderChangeTable(changes: readonly LabeledChange[]): string {
  if (changes.length === 0) return '<p class="changes-none">No labeled changes.</p>';
  const rows = changes
    .map((change) => {
      const outcome =
        change.latencyMs === undefined
          ? '<td class="missed">missed</td>'
          : `<td>${change.latencyMs} ms</td>`;
      const jumpTo = change.detectedT ?? change.labelT;
      return `<tr class="change-row" data-t="${jumpTo}"><td>${seconds(change.startT)}</td><td>${forHtml(change.from)} → ${forHtml(change.to)}</td>${outcome}</tr>`;
    })
    .join('');
  return `<table class="changes"><thead><tr><th>changed at</th><th>labeled change</th><th>detected after</th></tr></thead><tbody>${rows}</tbody></table>`;
}

interface Span {
  readonly from: number;
  readonly to: number;
  readonly state: BandState;
}

/** Step changes → contiguous spans over [0, duration]; `initial` fills the time before the first. */
function spansOf(changes: readonly { t: number; state: BandState }[], duration: number, initial: BandState): Span[] {
  const spans: Span[] = [];
  let from = 0;
  let state = initial;
  for (const change of changes) {
    const at = Math.min(Math.max(change.t, 0), duration);
    if (at > from) spans.push({ from, to: at, state });
    from = Math.max(from, at);
    state = change.state;
  }
  if (duration > from) spans.push({ from, to: duration, state });
  return spans;
}

function niceStep(rough: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(rough, 1e-3)));
  const multiple = [1, 2, 5, 10].find((candidate) => candidate * magnitude >= rough) ?? 10;
  return multiple * magnitude;
}

function formatTick(t: number, step: number): string {
  if (step >= 60 && t >= 60) return `${Math.floor(t / 60)}m${t % 60 === 0 ? '' : `${Math.round(t % 60)}s`}`;
  return `${Number(t.toFixed(step < 1 ? 1 : 0))}s`;
}

function seconds(t: number): string {
  return `${Number(t.toFixed(3))}s`;
}

function fmt(value: number): string {
  return value.toFixed(2);
}

/** JSON safe inside a <script> element: no `</script>`, no `<!--`, no U+2028/9 or bidi surprises (forJson). */
export function jsonForScript(value: unknown): string {
  return forJson(JSON.stringify(value)).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#111827;background:#fff}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:24px 0 4px}h2 small{color:#6b7280;font-weight:normal}
.total span,.metrics span{margin-right:14px;white-space:nowrap;display:inline-block}
.metrics{margin:0 0 6px;color:#374151}
.legend span{margin-right:14px;white-space:nowrap;display:inline-block}
.legend i{display:inline-block;width:14px;height:14px;vertical-align:-2px;margin-right:4px;border:1px solid #d1d5db}
.legend b{margin-right:4px}
.mark-change{color:#111827}.mark-miss{color:#991b1b}.mark-spurious{color:#f59e0b}
section.recording{border-top:1px solid #e5e7eb;padding-bottom:8px}
svg.timeline{width:100%;height:auto;display:block;cursor:crosshair;user-select:none}
.band-name{font-size:12px;fill:#374151}
.tick{font-size:10px;fill:#4b5563}
line.axis{stroke:#6b7280;stroke-width:1}
line.change{stroke:#111827;stroke-width:1.2;stroke-dasharray:3 2}
text.miss{font-size:22px;font-weight:bold;fill:#991b1b;stroke:#fff;stroke-width:2px;paint-order:stroke}
path.detected{fill:#111827}
path.spurious{fill:#f59e0b;stroke:#92400e;stroke-width:0.5}
line.cursor{stroke:#111827;stroke-width:2;opacity:0}
line.cursor.on{opacity:.55}
table.changes{border-collapse:collapse;margin:6px 0;font-size:13px}
table.changes td,table.changes th{border:1px solid #e5e7eb;padding:2px 8px;text-align:left}
table.changes tr.change-row{cursor:pointer}table.changes tr.change-row:hover{background:#f3f4f6}
td.missed{color:#991b1b;font-weight:bold}
.moment-head{color:#374151;margin:6px 0 2px}
.moment-head .at{font-weight:bold;color:#111827}
pre.screen{background:#111827;color:#e5e7eb;padding:8px;margin:0;overflow:auto;max-height:420px;font:12px/1.25 ui-monospace,monospace;min-height:3em;white-space:pre}
`;

// Plain ES5-ish script on purpose: it runs from a file:// page in any browser, no build step.
const SCRIPT = `
(function(){
  var PLOT_LEFT=${PLOT_LEFT}, PLOT_RIGHT=${PLOT_RIGHT}, VIEW_WIDTH=${VIEW_WIDTH};
  function lastAtOrBefore(list,t){var found=null;for(var i=0;i<list.length;i++){if(list[i].t<=t+1e-9)found=list[i];else break;}return found;}
  function fmt(t){return (Math.round(t*1000)/1000)+'s';}
  document.querySelectorAll('section.recording').forEach(function(section){
    var data=JSON.parse(section.querySelector('script.report-data').textContent);
    var svg=section.querySelector('svg.timeline');
    var cursor=svg.querySelector('line.cursor');
    var at=section.querySelector('.moment .at');
    var screen=section.querySelector('pre.screen');
    function show(t){
      t=Math.max(0,Math.min(data.duration,t));
      var x=PLOT_LEFT+(t/data.duration)*(PLOT_RIGHT-PLOT_LEFT);
      cursor.setAttribute('x1',x);cursor.setAttribute('x2',x);cursor.classList.add('on');
      var label=lastAtOrBefore(data.labels,t), pub=lastAtOrBefore(data.published,t), snap=lastAtOrBefore(data.snapshots,t);
      at.textContent='t = '+fmt(t)+' · label: '+(label?label.state:'(none)')+' · published: '+(pub?pub.state:'unknown')+
        (pub&&pub.rule_id?' ('+pub.rule_id+')':'')+(snap?' · screen from '+fmt(snap.t):' · no screen captured yet');
      screen.textContent=snap?snap.text:'';
    }
    svg.addEventListener('click',function(event){
      var box=svg.getBoundingClientRect();
      var vx=(event.clientX-box.left)*VIEW_WIDTH/box.width;
      // Snap to the 100 ms grid that scoring samples on.
      show(Math.round((vx-PLOT_LEFT)/(PLOT_RIGHT-PLOT_LEFT)*data.duration*10)/10);
    });
    section.querySelectorAll('tr.change-row').forEach(function(row){
      row.addEventListener('click',function(){show(Number(row.getAttribute('data-t')));});
    });
    show(data.initialT);
  });
})();
`;
