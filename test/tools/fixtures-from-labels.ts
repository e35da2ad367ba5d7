/**
 * Regenerates the fixtures cut from recordings (`# provenance: <cast> at <S>s, agentwrap replay
 * --capture-at`) from the recording and its labels, and fails when they disagree:
 *   - the expectation in the file name comes from the label at that second (core/recordings/fixture-labels.ts),
 *     never from what agentwrap published;
 *   - the screen, title, progress and cursor come from replaying the recording to that second.
 * Not a test (it replays every recording once): `npm run fixtures` checks, `npm run fixtures --
 * --write` rewrites and renames. To re-cut a fixture at another second, edit the second in its
 * provenance line and run with --write. Fixtures whose recording is not in the repository are
 * listed and left alone. Exit code 1 while any problem remains.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDefaultRegistry } from '../../src/app/pack-registry.js';
import { packForRecording, readRecordingFile } from '../../src/app/recording/files.js';
import { replayRecording } from '../../src/app/recording/replay.js';
import { formatFixture } from '../../src/cli/capture.js';
import { parseFixture, parseFixtureName, type FixtureExpectation } from '../../src/core/packs/fixture.js';
import { captureOrigin, describeAgreement, expectationFromLabel, labelAgreement, type CaptureOrigin } from '../../src/core/recordings/fixture-labels.js';
import { labelAt } from '../../src/core/recordings/labels.js';
import { recordingDuration } from '../../src/core/recordings/recording.js';

const ROOT = new URL('../../..', import.meta.url).pathname.replace(/\/dist\/?$/, '');
const FIXTURES = join(ROOT, 'fixtures');
const RECORDINGS = join(ROOT, 'recordings');

interface CutFixture {
  readonly agent: string;
  readonly file: string;
  readonly expected: FixtureExpectation;
  readonly slug: string;
  readonly text: string;
  readonly origin: CaptureOrigin;
}

function cutFixtures(): CutFixture[] {
  const found: CutFixture[] = [];
  for (const agent of readdirSync(FIXTURES).sort()) {
    const dir = join(FIXTURES, agent);
    if (!existsSync(dir) || !readdirSync(dir).length) continue;
    for (const file of readdirSync(dir).sort()) {
      const name = parseFixtureName(file);
      if (name === undefined) continue;
      const text = readFileSync(join(dir, file), 'utf8');
      const origin = captureOrigin(parseFixture(text).provenance);
      if (origin !== undefined) found.push({ agent, file, expected: name.expected, slug: name.slug, text, origin });
    }
  }
  return found;
}

/** The fixture as the recording gives it at its second: the committed header lines, then the capture. */
async function regenerate(fixtures: readonly CutFixture[], castPath: string): Promise<Map<CutFixture, string>> {
  const loaded = readRecordingFile(castPath);
  const registry = loadDefaultRegistry({});
  const { pack } = packForRecording(registry, loaded, undefined);
  const texts = new Map<CutFixture, string>();
  await replayRecording(loaded.recording, {
    pack,
    inspectAtS: fixtures.map((f) => f.origin.atS),
    inspect: (moment) => {
      for (const fixture of fixtures.filter((f) => f.origin.atS === moment.tS)) {
        const parsed = parseFixture(fixture.text);
        const notLine = fixture.text.startsWith('# not:') ? [fixture.text.split('\n')[0] ?? ''] : [];
        const body = formatFixture({ agent: fixture.agent, snapshot: moment.session.snapshot(), state: 'unknown', provenance: parsed.provenance, slug: fixture.slug });
        texts.set(fixture, [...notLine, body].join('\n'));
      }
    },
  });
  return texts;
}

async function main(): Promise<number> {
  const isWrite = process.argv.includes('--write');
  const fixtures = cutFixtures();
  const problems: string[] = [];
  const unverifiable: string[] = [];
  let agreeing = 0;
  const byCast = new Map<string, CutFixture[]>();
  for (const fixture of fixtures) {
    const castPath = join(RECORDINGS, fixture.agent, fixture.origin.cast);
    if (!existsSync(castPath)) {
      unverifiable.push(`${fixture.agent}/${fixture.file}: ${fixture.origin.cast} is not in recordings/`);
      continue;
    }
    byCast.set(castPath, [...(byCast.get(castPath) ?? []), fixture]);
  }
  for (const [castPath, group] of byCast) {
    const loaded = readRecordingFile(castPath);
    const durationS = recordingDuration(loaded.recording);
    const texts = await regenerate(group, castPath);
    for (const fixture of group) {
      const where = `${fixture.agent}/${fixture.file}`;
      if (fixture.origin.atS > durationS) {
        problems.push(`${where}: cut at ${fixture.origin.atS}s, but ${fixture.origin.cast} ends at ${durationS.toFixed(1)}s (it was cut from an older recording)`);
        continue;
      }
      const labelState = loaded.labels === undefined ? undefined : labelAt(loaded.labels, fixture.origin.atS);
      const agreement = labelAgreement(fixture.expected, parseFixture(fixture.text).notState, labelState);
      const regenerated = texts.get(fixture);
      const isScreenSame = regenerated === fixture.text;
      if (agreement.kind === 'uncertain' || (agreement.kind === 'disagrees' && fixture.expected === 'false_positive')) {
        problems.push(`${where}: ${describeAgreement(agreement, fixture.origin)}`);
        continue;
      }
      const expected = agreement.kind === 'agrees' ? fixture.expected : expectationFromLabel(fixture.expected, agreement.labelState);
      const file = `${expected}_${fixture.slug}.txt`;
      if (agreement.kind === 'agrees' && isScreenSame) {
        agreeing += 1;
        continue;
      }
      const what = [agreement.kind === 'disagrees' ? describeAgreement(agreement, fixture.origin) : '', isScreenSame ? '' : 'the screen differs from the recording at that second']
        .filter((s) => s !== '')
        .join('; ');
      if (!isWrite || regenerated === undefined) {
        problems.push(`${where}: ${what}`);
        continue;
      }
      const dir = join(FIXTURES, fixture.agent);
      writeFileSync(join(dir, fixture.file), regenerated);
      if (file !== fixture.file) renameSync(join(dir, fixture.file), join(dir, file));
      process.stdout.write(`rewrote ${where}${file === fixture.file ? '' : ` as ${file}`}: ${what}\n`);
    }
  }
  process.stdout.write(`${fixtures.length} fixtures cut from recordings: ${agreeing} agree with their recording and its labels\n`);
  for (const line of unverifiable) process.stdout.write(`not checked: ${line}\n`);
  for (const line of problems) process.stdout.write(`problem: ${line}\n`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
