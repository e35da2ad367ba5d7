/**
 * A private OpenSSH server for tests of `--host`: listening on 127.0.0.1 only, on a free port,
 * with its own host key and one authorized client key, and a client config (`ssh -F`) that
 * names it `box` and a closed port `dead`. The remote side is this machine; the ssh config
 * sends AGENT_STATUS_DIR (SetEnv/AcceptEnv), so "the other machine" has its own state directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';

/** Why the sshd tests cannot run here, or undefined when they can. */
export function sshdUnavailable(): string | undefined {
  if (!existsSync(SSHD)) return 'openssh-server is not installed (apt-get install -y openssh-server)';
  if (spawnSync('ssh', ['-V']).status !== 0) return 'the ssh client is not installed';
  if (process.getuid?.() !== 0) return 'sshd needs root here (its privilege-separation directory)';
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface TestSshd {
  /** `ssh -F <config>`: for AGENTWRAP_SSH_COMMAND. */
  readonly sshCommand: string;
  readonly stop: () => void;
}

/** Starts sshd and waits until `ssh box true` works. */
export async function startSshd(dir: string, remoteStateDir: string): Promise<TestSshd> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // sshd refuses to start without its privilege-separation directory.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const keygen = (file: string): void => {
    const result = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
    if (result.status !== 0) throw new Error(`ssh-keygen failed: ${result.stderr.toString()}`);
  };
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')), { mode: 0o600 });
  const hostPub = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  const port = await freePort();
  const deadPort = await freePort();
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub}\n`);
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      `PidFile ${join(dir, 'sshd.pid')}`,
      'AcceptEnv AGENT_STATUS_DIR',
      '',
    ].join('\n'),
  );
  const user = process.env['USER'] ?? 'root';
  writeFileSync(
    join(dir, 'ssh_config'),
    [
      'Host box',
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, 'client_key')}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  StrictHostKeyChecking yes',
      `  SetEnv AGENT_STATUS_DIR=${remoteStateDir}`,
      'Host dead',
      '  HostName 127.0.0.1',
      `  Port ${deadPort}`,
      `  User ${user}`,
      '',
    ].join('\n'),
  );
  const server: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8192);
  });
  const sshCommand = `ssh -F ${join(dir, 'ssh_config')}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = spawnSync('ssh', ['-F', join(dir, 'ssh_config'), '-o', 'BatchMode=yes', 'box', 'true'], { encoding: 'utf8' });
    if (probe.status === 0) break;
    if (Date.now() > deadline || server.exitCode !== null) {
      server.kill('SIGKILL');
      throw new Error(`sshd did not accept the test key: ${probe.stderr}\nsshd log:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { sshCommand, stop: () => server.kill('SIGTERM') };
}
