/** How `--host` runs ssh: the user's ssh with BatchMode and a connect timeout, or their own command. */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isSafeHost, spawnSsh, sshCommand, SSH_CONNECT_TIMEOUT_S } from '../../src/adapters/ssh.js';
import { isPidAlive } from '../../src/adapters/process/alive.js';

describe('ssh command', () => {
  it('runs plain ssh, never prompting, with a connect timeout, the host after --', () => {
    expect(sshCommand({ host: 'ann@box', env: {} }, ['status', '--json'])).toEqual({
      file: 'ssh',
      args: ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${SSH_CONNECT_TIMEOUT_S}`, '-T', '--', 'ann@box', 'agentwrap status --json'],
    });
  });

  it('uses AGENTWRAP_SSH_COMMAND through the shell, and AGENTWRAP_REMOTE_COMMAND on the far side', () => {
    const env = { AGENTWRAP_SSH_COMMAND: 'ssh -F /home/ann/.ssh/agents.conf', AGENTWRAP_REMOTE_COMMAND: '~/.npm/bin/agentwrap' };
    const { file, args } = sshCommand({ host: 'box', env }, ['events']);
    expect(file).toBe('/bin/sh');
    expect(args.slice(0, 3)).toEqual(['-c', 'exec ssh -F /home/ann/.ssh/agents.conf "$@"', 'ssh']);
    expect(args.slice(-2)).toEqual(['box', '~/.npm/bin/agentwrap events']);
  });

  it('sets variables for the far side with env in front of its agentwrap, and refuses any that would need quoting', () => {
    const { args } = sshCommand({ host: 'box', env: {} }, ['events'], { AGENTWRAP_EVENTS_UNTIL_EOF: '1' });
    expect(args.at(-1)).toBe('env AGENTWRAP_EVENTS_UNTIL_EOF=1 agentwrap events');
    expect(() => sshCommand({ host: 'box', env: {} }, ['events'], { X: '1; rm -rf ~' })).toThrow(/not a plain word/);
  });

  it("quotes a word that is not plain (send's prompt), so the far side's shell reads each argument back as it was", () => {
    const words = ['send', '--from', 'ann', 'demo-1', `fix the "tests"; don't rm -rf ~ $(id) \`x\``];

    const remote = sshCommand({ host: 'box', env: { AGENTWRAP_REMOTE_COMMAND: "printf '%s\\n'" } }, words).args.at(-1) ?? '';
    const readBack = spawnSync('/bin/sh', ['-c', remote], { encoding: 'utf8' }).stdout;

    expect(readBack.split('\n').slice(0, -1)).toEqual(words);
    expect(remote.startsWith("printf '%s\\n' send --from ann demo-1 '")).toBe(true);
  });

  it('holds ssh\'s stdin open only when asked (the far side\'s stdin then ends with this ssh)', async () => {
    // A stand-in for ssh that exits 7 once its stdin ends (its arguments become $0, $1…).
    const env = { AGENTWRAP_SSH_COMMAND: `sh -c 'cat >/dev/null; exit 7'` };
    const held = spawnSsh({ host: 'box', env }, ['events'], { holdStdin: true });
    const closed = spawnSsh({ host: 'box', env }, ['events']);

    const [closedCode] = (await once(closed, 'close')) as [number];
    expect(closedCode).toBe(7);
    expect(held.exitCode).toBeNull();
    held.stdin?.end();
    const [heldCode] = (await once(held, 'close')) as [number];
    expect(heldCode).toBe(7);
  });

  it('stops the user\'s own ssh command itself, not a shell in front of it', async () => {
    // A stand-in for `ssh -F …` that would wait on the far side's events for ever. `--` ends
    // node's own options: without it node refuses the ssh options that follow (`bad option: -o`)
    // and exits, and the test passed only when it read the pid before that.
    const env = { AGENTWRAP_SSH_COMMAND: `${process.execPath} -e "setTimeout(() => undefined, 30000)" --` };
    const child = spawnSsh({ host: 'box', env }, ['events']);
    const pid = child.pid ?? -1;
    // The shell execs the command: the pid agentwrap holds becomes node's once it has.
    let program = '';
    for (let attempt = 0; attempt < 500 && program !== process.execPath; attempt++) {
      program = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
      if (program !== process.execPath) await new Promise((resolve) => setTimeout(resolve, 10));
    }

    child.kill('SIGTERM');
    await once(child, 'close');

    expect(program).toBe(process.execPath);
    expect(isPidAlive(pid)).toBe(false);
  });

  it('refuses host names ssh would read as options or that hold whitespace', () => {
    expect(isSafeHost('ann@build-box')).toBe(true);
    expect(isSafeHost('-oProxyCommand=touch /tmp/x')).toBe(false);
    expect(isSafeHost('box other')).toBe(false);
    expect(isSafeHost('')).toBe(false);
  });
});
