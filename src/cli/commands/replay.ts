/**
 * `agentwrap replay FILE.cast`: the recording through the live pipeline on a manual clock.
 * Prints the published transitions (default, `--timeline`, `--json`), the explain view or the
 * screen at a moment, or writes a fixture for a moment (`--capture-at S --out DIR`).
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { loadDefaultRegistry } from '../../app/pack-registry.js';
import { readRecordingFile, packForRecording, RecordingFileError, withoutPackScreenRules } from '../../app/recording/files.js';
import { replayRecording, type ReplayMoment } from '../../app/recording/replay.js';
import { RecordingFormatError } from '../../core/recordings/recording.js';
import { LabelsFormatError } from '../../core/recordings/labels.js';
import type { PublishedTransition } from '../../core/recordings/score.js';
import { writeCapture } from '../capture.js';
import { COMMANDS } from '../command-table.js';
import { CliError, printDiagnostic, UsageError } from '../errors.js';
import { forTerminal, toJson } from '../../core/text/sanitize.js';
import { numberFlag, parseCommand } from '../flags.js';
import { renderTickEntry, renderTickHistory, tickEntryToJson } from '../render/ticks.js';

const SPEC = {
  name: 'replay',
  usage: `usage: agentwrap replay FILE.cast [--agent A] [--no-screen-rules] [--timeline | --json | --explain-at S | --screen-at S | --capture-at S --out DIR]

Feeds a recording through the live detector on a manual clock and prints the transitions.
  --agent A          use agent A's pack (default: the one the recording names, else from its command)
  --no-screen-rules  the pack's screen rules off: signals, titles and process evidence decide
  --timeline         also draw the states as a band over time
  --json             one JSON object per transition
  --explain-at S     the tick at second S and the ones before it (--ticks N, default 10)
  --screen-at S      the screen at second S
  --capture-at S     write the screen at second S as a fixture into --out DIR
`,
  options: COMMANDS.replay.options,
} as const;

export function loadRecordingOrFail(path: string): ReturnType<typeof readRecordingFile> {
  if (!existsSync(path)) throw new CliError(`${path}: no such recording`);
  try {
    return readRecordingFile(path);
  } catch (error) {
    if (error instanceof RecordingFormatError || error instanceof LabelsFormatError || error instanceof RecordingFileError) throw new CliError(error.message, { cause: error });
    throw new CliError(`${path}: cannot read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('replay: give exactly one recording (FILE.cast)');
  const path = positionals[0] ?? '';
  const explainAt = numberFlag('replay', 'explain-at', values['explain-at']);
  const screenAt = numberFlag('replay', 'screen-at', values['screen-at']);
  const captureAt = numberFlag('replay', 'capture-at', values['capture-at']);
  const ticks = numberFlag('replay', 'ticks', values.ticks) ?? 10;
  if (captureAt !== undefined && values.out === undefined) throw new UsageError('replay: --capture-at needs --out DIR');

  const loaded = loadRecordingOrFail(path);
  for (const note of loaded.recording.notes) printDiagnostic(`${path}:${note.line}: ${note.message}`);
  const registry = loadDefaultRegistry(process.env);
  const found = packForRecording(registry, loaded, values.agent);
  const choice = values['no-screen-rules'] === true ? { ...found, pack: withoutPackScreenRules(found.pack) } : found;
  if (choice.pack === undefined) {
    process.stderr.write(`agentwrap: no pack for ${path} (${choice.how}); every state will be unknown. Use --agent.\n`);
  }

  const outputs: string[] = [];
  const inspectAtS = [explainAt, screenAt, captureAt].filter((t): t is number => t !== undefined);
  const inspect = (moment: ReplayMoment): void => {
    if (moment.tS === explainAt) {
      const entries = moment.session.log.entries().filter((e) => e.nowMs <= moment.tS * 1000);
      const current = entries[entries.length - 1];
      if (values.json === true) {
        outputs.push(toJson({ t: moment.tS, ticks: entries.slice(-ticks).map((e) => tickEntryToJson(e, 0)) }));
      } else if (current === undefined) {
        outputs.push(`no tick before ${moment.tS}s`);
      } else {
        outputs.push(renderTickEntry(current, `at ${moment.tS}s (last tick ${(current.nowMs / 1000).toFixed(2)}s)`));
        outputs.push(`\nlast ${Math.min(ticks, entries.length)} ticks:\n${renderTickHistory(entries.slice(-ticks), 0)}`);
      }
    }
    if (moment.tS === screenAt) outputs.push(moment.screen.view().rows.join('\n'));
    if (moment.tS === captureAt && values.out !== undefined) {
      const written = writeCapture(values.out, {
        agent: choice.agent ?? 'unknown',
        snapshot: moment.session.snapshot(),
        state: moment.session.state.session.state === 'done' ? 'done' : moment.session.state.session.raw,
        provenance: [`${basename(path)} at ${moment.tS}s, agentwrap replay --capture-at`, ...provenanceOf(loaded.recording.header.command)],
        slug: `${basename(path, '.cast')}-${moment.tS}s`,
      });
      outputs.push(`wrote ${written.fixture}\nwrote ${written.evidence}`);
    }
  };

  const result = await replayRecording(loaded.recording, { pack: choice.pack, inspectAtS, inspect, keyInputAtS: loaded.driverInputAtS });
  for (const warning of result.warnings) printDiagnostic(warning);

  if (inspectAtS.length > 0) {
    process.stdout.write(`${outputs.join('\n')}\n`);
    return 0;
  }
  if (values.json === true) {
    for (const t of result.transitions) {
      process.stdout.write(`${toJson({ t: round3(t.t), state: t.state, winner: t.winner ?? null, rule_id: t.rule_id ?? null, stuck: t.stuck })}\n`);
    }
    return 0;
  }
  process.stdout.write(renderTimeline(result.transitions, result.durationS, choice.agent, choice.how, values.timeline === true));
  // The cause the record names (`reason`), where it changes: it may change while the state does not.
  if (result.reasons.length > 0) process.stdout.write(`reason: ${result.reasons.map((r) => `${r.t.toFixed(2)}s ${forTerminal(r.reason ?? 'none')}`).join(' · ')}\n`);
  return 0;
}

function provenanceOf(command: string | undefined): string[] {
  return command === undefined ? [] : [`recorded command: ${command}`];
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

const BAND_CHARS: Record<string, string> = { working: 'W', blocked: 'B', done: 'd', idle: 'i', unknown: '?' };

/** Transitions as lines; with `--timeline` also a band of one character per step of time. */
export function renderTimeline(
  transitions: readonly PublishedTransition[],
  durationS: number,
  agent: string | undefined,
  how: string,
  withBand: boolean,
): string {
  const lines = [`pack: ${agent ?? 'none'} (${how}); ${transitions.length} transitions over ${durationS.toFixed(1)}s`];
  transitions.forEach((t, i) => {
    const until = transitions[i + 1]?.t ?? durationS;
    const span = `${Math.max(0, until - t.t).toFixed(1)}s`;
    const why = `${t.winner ?? ''}${t.rule_id === null || t.rule_id === undefined ? '' : ` ${t.rule_id}`}`;
    lines.push(`${t.t.toFixed(2).padStart(8)}s  ${(t.state + (t.stuck ? '+stuck' : '')).padEnd(13)} ${span.padStart(7)}  ${why}`);
  });
  if (withBand && durationS > 0) {
    const width = 72;
    const step = durationS / width;
    let band = '';
    for (let i = 0; i < width; i++) {
      const at = i * step;
      let current: PublishedTransition | undefined;
      for (const t of transitions) if (t.t <= at) current = t;
      band += current === undefined ? ' ' : current.stuck ? 'S' : (BAND_CHARS[current.state] ?? '?');
    }
    lines.push('', `|${band}|`, `0s${' '.repeat(Math.max(1, width - 4))}${durationS.toFixed(0)}s`);
    lines.push('W working  B blocked  d done  i idle  ? unknown  S stuck');
  }
  return `${lines.join('\n')}\n`;
}
