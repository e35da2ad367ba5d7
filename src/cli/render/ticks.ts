/**
 * Pure rendering of the explain ring buffer (core/tick-log entries) for `status explain
 * <session>` and `replay --explain-at`. It renders what the tick recorded; nothing is re-derived.
 */
import type { ReportDigest, SnapshotDigest, TickLogEntry } from '../../core/detector/tick-log.js';

function age(ms: number | undefined): string {
  if (ms === undefined) return 'never';
  if (ms < 1000) return `${Math.round(ms)}ms ago`;
  return `${(ms / 1000).toFixed(1)}s ago`;
}

function processLine(entry: TickLogEntry): string {
  const p = entry.digest.process;
  if (!p.sampled) return `absent (${p.reason})`;
  const cpu = p.cpuRate === undefined ? 'cpu n/a' : `cpu ${(p.cpuRate * 100).toFixed(1)}%`;
  const children =
    p.liveChildren === undefined ? 'children unknown' : p.liveChildren === 0 ? 'no children' : `${p.liveChildren} children (${p.childCommands.join(', ')})`;
  const fg = p.isForeground === undefined ? '' : p.isForeground ? ', agent in foreground' : ', child in foreground';
  return `${cpu}, state ${p.agentState}, ${children}${fg}`;
}

/** One reporter source: its last event and age, what gating did, and whether its claim counted. */
function reportLine(r: ReportDigest): string {
  const claim =
    r.claim === undefined
      ? 'no claim'
      : `claims ${r.claim.state} (${r.claim.grade}, ${r.claim.event}, ${age(r.claim.ageMs)}) — ${r.counted ? 'counted' : r.claim.status === 'live' ? 'outranked' : r.claim.status}`;
  const dropped = r.dropped === 0 ? '' : `, ${r.dropped} dropped`;
  return `reporter ${r.source} (${r.agent}): last ${r.lastEvent} ${age(r.lastAgeMs)} → ${r.lastEffect}; ${claim} [${r.accepted} accepted${dropped}]`;
}

/** The agent's own OSC 7501 report: what it says and how old it is. */
function statusLine(status: SnapshotDigest['programStatus']): string {
  if (status === undefined) return 'none';
  const extras = [...(status.kind === undefined ? [] : [`kind ${status.kind}`]), ...(status.progress === undefined ? [] : [`${status.progress}%`])];
  return `${status.app ?? 'agent'} ${status.state}${extras.length === 0 ? '' : ` (${extras.join(', ')})`}, OSC 7501 (${age(status.ageMs)})`;
}

/** Which said what, and since when (seconds on the session clock, from `startMs`). */
function disagreementLine(entry: TickLogEntry, startMs: number): string | undefined {
  const d = entry.disagreement;
  if (d === undefined) return undefined;
  const rule = d.ruleId === undefined ? '' : ` (rule ${d.ruleId})`;
  const since = ((d.sinceMs - startMs) / 1000).toFixed(2);
  return `  disagreement: ${d.app ?? 'the agent'} says ${d.reported}, the screen reads ${d.screen}${rule}, since ${since}s (${((entry.nowMs - d.sinceMs) / 1000).toFixed(1)}s): the pack may be stale for this release`;
}

/** The full view of one tick: state, winner, matches, evidence with ages, debounce and watchdog. */
export function renderTickEntry(entry: TickLogEntry, label: string, startMs = 0): string {
  const d = entry.decision;
  const lines = [
    `${label}: ${entry.state}${entry.stuck ? ' (stuck)' : ''}  (published raw ${entry.published}, revision ${entry.revision})`,
    `  decision: ${d.raw} (${d.confidence}) by ${d.winner}${d.ruleId === undefined ? '' : ` rule ${d.ruleId}`} at step ${d.step}`,
  ];
  for (const note of d.notes) lines.push(`    note: ${note.code}${note.detail === undefined ? '' : ` — ${note.detail}`}`);
  const disagreement = disagreementLine(entry, startMs);
  if (disagreement !== undefined) lines.push(disagreement);
  lines.push(`  debounce: ${entry.debounce.action} (${entry.debounce.reason})${entry.debounce.detail ? ` — ${entry.debounce.detail}` : ''}`);
  lines.push(`  watchdog: ${entry.watchdog.reason}${entry.watchdog.detail ? ` — ${entry.watchdog.detail}` : ''}`);
  if (entry.isFlapping) lines.push(`  flapping: ${entry.flapsPerMinute} transitions in the last minute`);
  lines.push(`  pack: ${entry.packAgent ?? 'none'}; matching rules (highest priority first):`);
  if (entry.matches.length === 0) lines.push('    (none)');
  for (const m of entry.matches) lines.push(`    ${m.ruleId}  ${m.state}  priority ${m.priority}  ${m.strength}  region ${m.region}`);
  const g = entry.digest;
  lines.push('  evidence:');
  lines.push(`    screen revision ${g.screenRevision}; output ${age(g.outputAgeMs)}; input ${age(g.inputAgeMs)}`);
  lines.push(`    title: ${g.title === undefined ? 'none' : `${JSON.stringify(g.title)} (changed ${age(g.titleAgeMs)})`}`);
  lines.push(
    `    progress: ${g.progress === undefined ? 'none' : `${g.progress.state}${g.progress.value === undefined ? '' : `;${g.progress.value}`} (${age(g.progress.ageMs)})`}`,
  );
  lines.push(`    agent status: ${statusLine(g.programStatus)}`);
  if (g.mark !== undefined) lines.push(`    shell mark: ${g.mark.kind} (${age(g.mark.ageMs)})`);
  lines.push(`    process: ${processLine(entry)}`);
  if (g.exitCode !== undefined) lines.push(`    exited with code ${g.exitCode}`);
  for (const r of g.reports ?? []) lines.push(`    ${reportLine(r)}`);
  return lines.join('\n');
}

/** One line per tick, oldest first, for the history under the current tick. */
export function renderTickHistory(entries: readonly TickLogEntry[], startMs: number): string {
  return entries
    .map((e) => {
      const t = ((e.nowMs - startMs) / 1000).toFixed(2).padStart(8);
      const rule = e.decision.ruleId === undefined ? '' : ` ${e.decision.ruleId}`;
      return `${t}s  ${e.state.padEnd(7)}${e.stuck ? ' stuck' : ''}  ← ${e.decision.raw}/${e.decision.confidence} ${e.decision.winner}${rule}  [${e.debounce.action}: ${e.debounce.reason}]`;
    })
    .join('\n');
}

/** A tick entry as JSON for `--json` (entries are plain data already; times made relative). */
export function tickEntryToJson(entry: TickLogEntry, startMs: number): Record<string, unknown> {
  return { t: (entry.nowMs - startMs) / 1000, ...entry };
}
