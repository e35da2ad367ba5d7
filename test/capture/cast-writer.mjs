// TEMPORARY: a minimal asciicast v2 writer, used only while `agentwrap --record` is not in the
// tree (recorder.ts / recording.ts are being written by others). Recordings made with it say
// `"recorder": "direct-temporary"` in their .meta.json. Delete this file once every recording
// goes through agentwrap (processes.mjs `spawnRecorded`, mode 'agentwrap').
import { openSync, writeSync, closeSync } from 'node:fs';

export class TemporaryCastWriter {
  constructor(path, { cols, rows, startWall, env = {}, title }) {
    this.fd = openSync(path, 'w');
    this.startWall = startWall;
    const header = { version: 2, width: cols, height: rows, timestamp: Math.floor(startWall / 1000), env: { TERM: env.TERM ?? 'xterm-256color', SHELL: env.SHELL ?? '/bin/bash' } };
    if (title) header.title = title;
    writeSync(this.fd, JSON.stringify(header) + '\n');
  }

  event(wall, code, data) {
    if (this.fd === undefined) return;
    const t = Math.max(0, (wall - this.startWall) / 1000);
    writeSync(this.fd, JSON.stringify([Number(t.toFixed(6)), code, data]) + '\n');
  }

  close() {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
