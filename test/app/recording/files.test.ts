/**
 * Which pack replays a recording: the one the live session named in the header comes first, so a
 * user's recording (`node …/agent.js` under `--pack demo`) needs no `--agent`; `--agent` still
 * overrides; a recording without the field is chosen for as before.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../../src/app/pack-registry.js';
import { packForRecording, readRecordingFile } from '../../../src/app/recording/files.js';
import { encodeHeader, type RecordedPack } from '../../../src/core/recordings/recording.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const registry = loadDefaultRegistry({});

function recordingWith(command: string, pack: RecordedPack | undefined) {
  const path = join(dir, `r${Math.random().toString(36).slice(2)}.cast`);
  writeFileSync(path, `${encodeHeader({ cols: 80, rows: 24, timestamp: 0, command, env: {}, ...(pack === undefined ? {} : { pack }) })}[0.1, "o", "hi"]\n`);
  return readRecordingFile(path);
}

describe('packForRecording', () => {
  it('takes the pack the header names, where the command names none', () => {
    const choice = packForRecording(registry, recordingWith('/usr/bin/node /opt/demo/agent.js', { agent: 'demo' }), undefined);

    expect(choice).toMatchObject({ agent: 'demo', how: 'recorded pack' });
    expect(choice.pack?.agent).toBe('demo');
  });

  it('prefers the recorded pack to the command, and --agent to both', () => {
    const loaded = recordingWith('claude', { agent: 'demo' });

    expect(packForRecording(registry, loaded, undefined).pack?.agent).toBe('demo');
    expect(packForRecording(registry, loaded, 'codex')).toMatchObject({ agent: 'codex', how: '--agent' });
  });

  it('says so when the pack file changed since the recording', () => {
    const demo = registry.packForAgent('demo');
    expect(demo?.digest).toMatch(/^[0-9a-f]{16}$/);

    expect(packForRecording(registry, recordingWith('x', { agent: 'demo', digest: demo?.digest ?? '' }), undefined).how).toBe('recorded pack');
    expect(packForRecording(registry, recordingWith('x', { agent: 'demo', digest: '0000000000000000' }), undefined).how).toBe('recorded pack, changed since');
  });

  it('falls back to the command when the recorded agent has no pack here, and without the field chooses as before', () => {
    expect(packForRecording(registry, recordingWith('claude', { agent: 'no-such-agent' }), undefined)).toMatchObject({ agent: 'claude', how: 'header command claude' });
    expect(packForRecording(registry, recordingWith('claude', undefined), undefined)).toMatchObject({ agent: 'claude', how: 'header command claude' });
    expect(packForRecording(registry, recordingWith('/usr/bin/node agent.js', undefined), undefined).how).toBe('no pack found');
  });
});
