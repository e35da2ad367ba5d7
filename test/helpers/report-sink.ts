/**
 * A session's control socket that only collects the reports sent to it: for tests of hook
 * delivery (the spool, OpenCode's stream) that need a real socket on the other end.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startControlServer } from '../../src/app/control/socket.js';

export interface ReportSink {
  readonly controlPath: string;
  readonly reports: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startReportSink(dir: string): Promise<ReportSink> {
  mkdirSync(join(dir, 'control'), { mode: 0o700 });
  const controlPath = join(dir, 'control', 'c.sock');
  const reports: Record<string, unknown>[] = [];
  const server = await startControlServer(controlPath, {
    explain: () => ({}), capture: () => ({}), ack: () => ({}), subscribe: () => () => undefined,
    report: (params) => {
      reports.push(params);
      return { accepted: true };
    },
  });
  return { controlPath, reports, close: () => server.close() };
}
