/**
 * Recording files on disk: finding them, reading them with their labels, and choosing the pack
 * to replay them with. Pure decoding lives in core/recordings/recording.ts and core/recordings/labels.ts.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describeReadFailure, FileTooLargeError, NotRegularFileError, readRegularTextFileSync } from '../../adapters/bounded-file.js';
import { CAST_MAX_BYTES, CAST_SIDECAR_MAX_BYTES } from '../../core/input-bounds.js';
import { parseLabels, labelsPathFor, type Label } from '../../core/recordings/labels.js';
import { INPUT_MARKER_CODE } from '../../core/recordings/recorded-evidence.js';
import { commandBasename, decodeRecording, type Recording } from '../../core/recordings/recording.js';
import { withoutScreenRules } from '../../core/packs/compile.js';
import type { LoadedPack, PackRegistry } from '../pack-registry.js';

export interface LoadedRecording {
  readonly path: string;
  readonly recording: Recording;
  /** Undefined when there is no `<name>.labels.jsonl` beside the recording. */
  readonly labels: readonly Label[] | undefined;
  /** The `agent` of `<name>.meta.json` when the capture lab wrote one. */
  readonly metaAgent: string | undefined;
  /**
   * When the capture lab's driver typed into the agent (seconds; its `driver_events` of type
   * `typed` and `key`), for recordings made without their input events: replay feeds these as
   * keystrokes, so a turn starts there as it did live. Empty when the recording has input.
   */
  readonly driverInputAtS: readonly number[];
}

/** A recording or its labels is not a regular file or is over its size limit: `FILE: reason`. */
export class RecordingFileError extends Error {
  override readonly name = 'RecordingFileError';
}

/** A file of a recording, bounded (core/input-bounds.ts): a FIFO or a 9 GB file is refused. */
function readBounded(path: string, maxBytes: number): string {
  try {
    return readRegularTextFileSync(path, maxBytes);
  } catch (error) {
    if (error instanceof NotRegularFileError || error instanceof FileTooLargeError) throw new RecordingFileError(`${path}: ${describeReadFailure(error)}`, { cause: error });
    throw error;
  }
}

export function readRecordingFile(path: string): LoadedRecording {
  const recording = decodeRecording(readBounded(path, CAST_MAX_BYTES), path);
  const labelsPath = labelsPathFor(path);
  const labels = existsSync(labelsPath) ? parseLabels(readBounded(labelsPath, CAST_SIDECAR_MAX_BYTES), labelsPath) : undefined;
  const meta = readMeta(path);
  const hasInput = recording.events.some((event) => event.kind === 'i' || event.kind === INPUT_MARKER_CODE);
  return { path, recording, labels, metaAgent: meta.agent, driverInputAtS: hasInput ? [] : meta.driverInputAtS };
}

function readMeta(castPath: string): { agent: string | undefined; driverInputAtS: number[] } {
  const none = { agent: undefined, driverInputAtS: [] };
  const metaPath = castPath.replace(/\.cast$/, '.meta.json');
  if (metaPath === castPath || !existsSync(metaPath)) return none;
  try {
    const meta = JSON.parse(readRegularTextFileSync(metaPath, CAST_SIDECAR_MAX_BYTES)) as { agent?: unknown; driver_events?: unknown };
    const events = Array.isArray(meta.driver_events) ? (meta.driver_events as Array<{ t?: unknown; type?: unknown }>) : [];
    return {
      agent: typeof meta.agent === 'string' ? meta.agent : undefined,
      driverInputAtS: events.filter((e) => (e.type === 'typed' || e.type === 'key') && typeof e.t === 'number').map((e) => e.t as number),
    };
  } catch {
    // A broken metadata file only loses the pack hint and the driver's keys; the header and --agent still choose.
    return none;
  }
}

/** `.cast` files under each path (directories searched recursively), sorted, deduplicated. */
export function findRecordings(paths: readonly string[]): string[] {
  const found = new Set<string>();
  const walk = (path: string): void => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        if (entry.startsWith('.')) continue;
        walk(join(path, entry));
      }
    } else if (path.endsWith('.cast')) {
      found.add(path);
    }
  };
  for (const path of paths) walk(path);
  return [...found].sort();
}

/**
 * The pack for a recording: `--agent` if given, else the pack the live session used (named in
 * the header; a pack file that changed since is said in `how`), else the pack whose `commands` lists the
 * header's command basename, else the capture lab's metadata agent, else the name of the
 * folder the recording sits in (`recordings/<agent>/…`).
 */
export function packForRecording(
  registry: PackRegistry,
  loaded: LoadedRecording,
  agentOverride: string | undefined,
): { pack: LoadedPack | undefined; agent: string | undefined; how: string } {
  if (agentOverride !== undefined) {
    return { pack: registry.packForAgent(agentOverride), agent: agentOverride, how: '--agent' };
  }
  const recorded = loaded.recording.header.pack;
  const recordedPack = recorded === undefined ? undefined : registry.packForAgent(recorded.agent);
  if (recorded !== undefined && recordedPack !== undefined) {
    const isChanged = recorded.digest !== undefined && recordedPack.digest !== undefined && recorded.digest !== recordedPack.digest;
    return { pack: recordedPack, agent: recorded.agent, how: isChanged ? 'recorded pack, changed since' : 'recorded pack' };
  }
  const command = loaded.recording.header.command;
  const name = command === undefined ? undefined : commandBasename(command);
  if (name !== undefined) {
    const pack = registry.packForCommand(name);
    if (pack !== undefined) return { pack, agent: pack.agent, how: `header command ${name}` };
  }
  if (loaded.metaAgent !== undefined) {
    return { pack: registry.packForAgent(loaded.metaAgent), agent: loaded.metaAgent, how: 'meta.json agent' };
  }
  const folder = basename(dirname(loaded.path));
  const pack = registry.packForAgent(folder);
  if (pack !== undefined) return { pack, agent: folder, how: `folder ${folder}` };
  return { pack: undefined, agent: name, how: 'no pack found' };
}

/** `--no-screen-rules`: the pack with its screen rules off (core/packs/compile.ts withoutScreenRules). */
export function withoutPackScreenRules(pack: LoadedPack | undefined): LoadedPack | undefined {
  return pack === undefined ? undefined : { ...pack, compiled: withoutScreenRules(pack.compiled) };
}
