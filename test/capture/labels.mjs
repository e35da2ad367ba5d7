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
 * How much earlier than its write a mark made by a key starts (steps.mjs). A key's place on the
 * cast clock is its write time shifted by the median offset of all keys (keyClockOffsetMs), and
 * single keys stray from the median by a few ms (3.5 ms in codex/question-80x24); the recorder
 * also stamps a key when the relay hands it over, after forwarding it, so a CLI that redraws at
 * once is recorded before its key (Codex's working title after a question was answered: 1.1 ms
 * before the Enter's `i` event, 0.7 ms before its mark, a "spurious" change inside blocked).
 */
export const KEY_SLACK_MS = 5;
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

/** How far apart, at most, the output-based cast clock and the recorded keys are looked for (s). */
const KEY_SEARCH_S = 30;
/**
 * How far from the (possibly shifted) estimate one key alone is looked for (s). 1 s was too
 * tight: Claude Code 2.1.337's simple-120x40 (drift run, 2026-12-07, a loaded machine) was 1.03 s
 * off with a single key recorded near it, so its labels stayed a second late.
 */
const KEY_NEAR_S = 3;
/** Keys closer than this to an `i` event of their bytes count as landing on it (ms). */
const KEY_AGREE_MS = 80;
/** How many keys must land on one shift before it is believed over the output-based clock. */
const KEY_CONSENSUS = 2;

/**
 * Median of (cast time of the `i` event carrying a key's bytes − the key's write time on the
 * cast clock estimated from `castStartWall`), in ms, over the keys found within KEY_NEAR_S; undefined
 * when none is found (a recorder without --record-input). When KEY_CONSENSUS or more keys agree
 * on a larger shift (up to KEY_SEARCH_S), that shift comes first: in a tmux pane the first output
 * the driver sees is not always the agent's first (Gemini CLI 0.61 with its hooks on, started
 * seconds late on a loaded machine, put every label 2.4-4.1 s late; Kilo Code draws nothing for
 * 6.7 s after its start, which put its keys 8 s from the estimate; Letta Code's 35 MB bundle
 * loads for 1.3 s before it writes anything, 1.47 s off in the tmux habitat).
 */
export function keyClockOffsetMs(castText, keyWrites, castStartWall) {
  const inputs = castText.split('\n').slice(1).filter((l) => l.includes('"i"')).map((l) => { try { return JSON.parse(l); } catch { return undefined; } }).filter((e) => e && e[1] === 'i');
  const coarseMs = consensusShiftMs(inputs, keyWrites, castStartWall) ?? 0;
  const offsets = [];
  for (const key of keyWrites) {
    const at = (key.t - castStartWall + coarseMs) / 1000;
    let best;
    for (const e of inputs) if (e[2] === key.bytes && Math.abs(e[0] - at) <= KEY_NEAR_S && (best === undefined || Math.abs(e[0] - at) < Math.abs(best - at))) best = e[0];
    if (best !== undefined) offsets.push((best - at) * 1000);
  }
  if (offsets.length === 0) return undefined;
  offsets.sort((x, y) => x - y);
  return coarseMs + offsets[Math.floor(offsets.length / 2)];
}

/** The shift (ms) on which the most keys land on an `i` event of their bytes, if KEY_CONSENSUS or more do. */
function consensusShiftMs(inputs, keyWrites, castStartWall) {
  const at = keyWrites.map((key) => ({ bytes: key.bytes, s: (key.t - castStartWall) / 1000 }));
  const lands = (key, shiftMs) => inputs.some((e) => e[2] === key.bytes && Math.abs(e[0] - key.s - shiftMs / 1000) * 1000 <= KEY_AGREE_MS);
  let best;
  for (const key of at) {
    for (const e of inputs) {
      if (e[2] !== key.bytes || Math.abs(e[0] - key.s) > KEY_SEARCH_S) continue;
      const shiftMs = (e[0] - key.s) * 1000;
      const count = at.filter((k) => lands(k, shiftMs)).length;
      if (best === undefined || count > best.count) best = { shiftMs, count };
    }
  }
  return best !== undefined && best.count >= KEY_CONSENSUS ? best.shiftMs : undefined;
}
