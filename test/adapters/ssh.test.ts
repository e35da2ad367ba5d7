/** How `--host` runs ssh: the user's ssh with BatchMode and a connect timeout, or their own command. */
import { describe, expect, it } from 'vitest';
import { isSafeHost, sshCommand, SSH_CONNECT_TIMEOUT_S } from '../../src/adapters/ssh.js';

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
    expect(args.slice(0, 3)).toEqual(['-c', 'ssh -F /home/ann/.ssh/agents.conf "$@"', 'ssh']);
    expect(args.slice(-2)).toEqual(['box', '~/.npm/bin/agentwrap events']);
  });

  it('refuses host names ssh would read as options or that hold whitespace', () => {
    expect(isSafeHost('ann@build-box')).toBe(true);
    expect(isSafeHost('-oProxyCommand=touch /tmp/x')).toBe(false);
    expect(isSafeHost('box other')).toBe(false);
    expect(isSafeHost('')).toBe(false);
  });
});
