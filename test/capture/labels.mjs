// Ground-truth labels from what the driver and the mock know — never from the screen.
//
// The driver records marks: { t: wall ms, state: 'working'|'blocked'|'idle'|'uncertain',
// settle?: ms | 'quiet', why }. Each mark holds until the next. After every mark the CLI needs
// time to render the new state, so a settling window right after it is labelled `uncertain`:
//   - a fixed window (SETTLE_MS, or the mark's own `settle` in ms), or
//   - 'quiet' for the end of a turn: until the CLI's output has been silent for QUIET_MS
//     (it may still be animating streamed text after the stream ended), at least
//     QUIET_MIN_MS and at most QUIET_CAP_MS after the mark. Output timing is bytes-on-the-wire
//     timing, not screen content: it says when drawing stopped, not what was drawn.
// A mark whose window reaches the next mark leaves only `uncertain` (the CLI may not have drawn
// its state yet). When the next mark is a new state (a tool call 1.18 s after Enter, inside
// Claude's 1.2 s submit window), its own window starts a second `uncertain` line: the scorer
// counts the new state's latency from that line, the event that caused it, not from Enter.

export const SETTLE_MS = 400;

/**
 * How much earlier than its write a mark made by a key starts (driver.mjs). A key's place on the
 * cast clock is its write time shifted by the median offset of all keys (keyClockOffsetMs), and
 * single keys stray from the median by a few ms (3.5 ms in codex/question-80x24); the recorder
 * also stamps a key when the relay hands it over, after forwarding it, so a CLI that redraws at
 * once is recorded before its key (Codex's working title after a question was answered: 1.1 ms
 * before the Enter's `i` event, 0.7 ms before its mark, a "spurious" change inside blocked).
 */
export const KEY_SLACK_MS = 5;
/** How far from its estimated place a key's `i` event may be found (keyClockOffsetMs). */
export const KEY_MATCH_MS = 4000;
export const QUIET_MS = 350;
export const QUIET_MIN_MS = 500;
export const QUIET_CAP_MS = 4000;

/** First time q >= from + QUIET_MIN_MS with no output chunk in (q - QUIET_MS, q], capped. */
export function quietAfter(outputTimes, from) {
  const cap = from + QUIET_CAP_MS;
  let q = from + QUIET_MIN_MS;
  // outputTimes is sorted; walk the chunks after `from`.
  for (const t of outputTimes) {
    if (t <= from) continue;
    if (t > q - QUIET_MS && t <= q) q = t + QUIET_MS;
    else if (t > q) break;
    if (q >= cap) return cap;
  }
  return Math.min(q, cap);
}

/** The smallest output chunk that counts as drawing: terminal queries and titles are under 100 bytes. */
export const PAINT_CHUNK_BYTES = 256;

/**
 * Index of the chunk where a restarted CLI's first paint began: the first chunk from `first` on
 * of at least PAINT_CHUNK_BYTES bytes (its queries and title come seconds earlier and are
 * small), or `fallback` when there is none.
 */
export function paintStart(sizes, first, fallback) {
  for (let i = first; i < sizes.length; i++) if (sizes[i] >= PAINT_CHUNK_BYTES) return i;
  return fallback;
}

/**
 * Builds the label list: [{ t: seconds since cast start, state }], consecutive duplicates
 * merged, the first label at t = 0. `castStartWall` is the wall time of the cast's t = 0.
 */
export function buildLabels(marks, outputTimes, castStartWall) {
  const sorted = [...marks].sort((a, b) => a.t - b.t);
  const spans = [];
  for (let i = 0; i < sorted.length; i++) {
    const m = sorted[i];
    const next = sorted[i + 1]?.t ?? Infinity;
    const settleEnd = m.settle === 'quiet' ? quietAfter(outputTimes, m.t) : m.t + (m.settle ?? SETTLE_MS);
    // A certain state's window that opens while a different mark's window is still uncertain.
    const restart = m.state !== 'uncertain' && i > 0 && sorted[i - 1].state !== m.state;
    if (m.state === 'uncertain' || settleEnd >= next) {
      spans.push({ t: m.t, state: 'uncertain', restart });
      continue;
    }
    if (settleEnd > m.t) spans.push({ t: m.t, state: 'uncertain', restart });
    spans.push({ t: settleEnd, state: m.state });
  }
  const out = [];
  for (const s of spans) {
    const t = Math.max(0, Math.round(s.t - castStartWall) / 1000);
    const last = out[out.length - 1];
    if (last && last.t === t) { out[out.length - 1] = { t, state: s.state }; continue; }
    if (last && last.state === s.state && !(s.state === 'uncertain' && s.restart)) continue;
    out.push({ t, state: s.state });
  }
  if (out.length === 0 || out[0].t > 0) out.unshift({ t: 0, state: 'uncertain' });
  // Merging after the unshift/overwrite may leave neighbours equal; fold them once more (an
  // uncertain line that restarts the span stays).
  const restarts = new Set(spans.filter((s) => s.restart).map((s) => Math.max(0, Math.round(s.t - castStartWall) / 1000)));
  return out.filter((l, i) => i === 0 || l.state !== out[i - 1].state || (l.state === 'uncertain' && restarts.has(l.t)));
}

export function labelsToJsonl(labels) {
  return labels.map((l) => JSON.stringify({ t: Number(l.t.toFixed(3)), state: l.state })).join('\n') + '\n';
}

/**
 * Median of (cast time of the `i` event carrying a key's bytes − the key's write time on the
 * cast clock estimated from `castStartWall`), in ms; undefined when no key is found (a recorder
 * without --record-input). Keys are matched in the order they were written, each to the next `i`
 * event with its bytes (terminal answers in between are skipped), within KEY_MATCH_MS: the first
 * output, by which `castStartWall` is estimated, can be far from where the cast puts it. In the
 * tmux habitat the driver saw output 1.47 s before the first `o` event of Letta Code's casts
 * (its 35 MB bundle loads for 1.3 s before it writes anything), and matching each key to the
 * nearest same bytes within 1 s then found none.
 */
export function keyClockOffsetMs(castText, keyWrites, castStartWall) {
  const inputs = castText.split('\n').slice(1).filter((l) => l.includes('"i"')).map((l) => { try { return JSON.parse(l); } catch { return undefined; } }).filter((e) => e && e[1] === 'i');
  const offsets = [];
  let next = 0;
  for (const key of keyWrites) {
    const at = (key.t - castStartWall) / 1000;
    for (let i = next; i < inputs.length; i++) {
      const e = inputs[i];
      if (e[2] !== key.bytes || e[0] < at - KEY_MATCH_MS / 1000) continue;
      if (e[0] <= at + KEY_MATCH_MS / 1000) { offsets.push((e[0] - at) * 1000); next = i + 1; }
      break;
    }
  }
  if (offsets.length === 0) return undefined;
  offsets.sort((x, y) => x - y);
  return offsets[Math.floor(offsets.length / 2)];
}
