import { describe, expect, it } from 'vitest';
import { ModeTracker } from '../../../src/adapters/terminal/terminal.js';
import { octalEscape } from '../../../src/adapters/terminal/guardian.js';
import { openOuterTerminal, REPO_ROOT, shellQuote } from '../../helpers/pty-outer.js';

describe('octalEscape', () => {
  it('escapes every byte printf %b would read specially, and nothing else', () => {
    expect(octalEscape('\x1b[?1049l')).toBe('\\0033[?1049l');
    expect(octalEscape('a\\b%c\n')).toBe('a\\0134b\\0045c\\0012');
    expect(octalEscape('é')).toBe('\\0303\\0251');
  });
});

describe('ModeTracker.revision', () => {
  it('moves when a mode changes, not for colours or repeated settings', () => {
    const tracker = new ModeTracker();
    const start = tracker.revision;
    tracker.feed(Buffer.from('\x1b[31mred\x1b[0m\x1b[?9999h'));
    expect(tracker.revision).toBe(start);
    tracker.feed(Buffer.from('\x1b[?1049h'));
    const afterAlt = tracker.revision;
    expect(afterAlt).toBeGreaterThan(start);
    tracker.feed(Buffer.from('\x1b[?1049h'));
    expect(tracker.revision).toBe(afterAlt);
    tracker.feed(Buffer.from('\x1b='));
    expect(tracker.revision).toBeGreaterThan(afterAlt);
  });
});

/** A process that takes the real terminal raw through processTerminal, then dies by SIGKILL. */
function killedInRaw(steps: string): string {
  return `
    import { processTerminal } from ${JSON.stringify(`${REPO_ROOT}/dist/src/adapters/terminal/terminal.js`)};
    const terminal = processTerminal();
    terminal.enterRaw();
    ${steps}
    process.stdout.write('DYING\\n');
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100);
  `;
}

function modesAfter(probe: string): string {
  return `${shellQuote(process.execPath)} --input-type=module -e ${shellQuote(probe)}; sleep 0.5; echo "MODES[$(stty -a | grep -o -- '-\\?\\(opost\\|icanon\\|echo\\|isig\\)\\b' | tr '\\n' ' ')]"`;
}

describe('the terminal guardian in a real terminal', () => {
  it('restores the settings and writes the mode resets when its process is killed in raw mode', async () => {
    const outer = openOuterTerminal(modesAfter(killedInRaw(`terminal.setCrashReset('\\x1b[?2004l\\x1b[?25h');`)));

    const output = await outer.waitFor(/MODES\[[^\]]*\]/);

    expect(output).toContain('MODES[opost isig icanon echo ]');
    expect(output.slice(output.indexOf('DYING'))).toContain('\x1b[0m\x1b[?2004l\x1b[?25h');
  });

  it('does nothing when the process restored the terminal itself before it died', async () => {
    const outer = openOuterTerminal(modesAfter(killedInRaw(`terminal.setCrashReset('\\x1b[?2004l'); terminal.restore();`)));

    const output = await outer.waitFor(/MODES\[[^\]]*\]/);

    expect(output).toContain('MODES[opost isig icanon echo ]');
    expect(output).not.toContain('\x1b[?2004l');
  });

  it('does not override a terminal someone else changed since raw mode was entered', async () => {
    // Another program (as a shell repairing the terminal would) sets its own modes before the death.
    // (After a pause: the guardian reads the raw settings itself once it starts.)
    const probe = killedInRaw(
      `await new Promise((r) => setTimeout(r, 500)); (await import('node:child_process')).execFileSync('stty', ['sane', '-echo'], { stdio: [1, 'ignore', 'ignore'] }); terminal.setCrashReset('\\x1b[?2004l');`,
    );
    const outer = openOuterTerminal(
      `${shellQuote(process.execPath)} --input-type=module -e ${shellQuote(probe)}; sleep 0.5; echo "MODES[$(stty -a | grep -o -- '-\\?\\(echo\\)\\b' | tr '\\n' ' ')]"`,
    );

    const output = await outer.waitFor(/MODES\[[^\]]*\]/);

    expect(output).toContain('MODES[-echo ]');
    expect(output).not.toContain('\x1b[?2004l');
  });
});
