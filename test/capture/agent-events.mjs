// An agent's own event stream, followed by the driver for one label only: when the agent itself
// says its turn is over. OpenCode is the one CLI here that has such a stream (the `GET /event`
// server-sent events of the HTTP server it runs when a port is configured; agentwrap follows the
// same stream for users who start that server, src/app/reporters/opencode-events.ts). Used where the mock
// cannot see the turn's end: OpenCode still draws a long answer for seconds after the stream has
// ended, spinner on, with pauses in its output longer than the labels' quiet window.
//
// The server is started by `--hostname 127.0.0.1` alone (agents.mjs `eventServer`), never by
// `--port`: with `--port` agentwrap itself would follow the stream and publish from it, and the
// recording would score that reporter against labels taken from the same events.
import { request } from 'node:http';
import { nowMs } from './mock.mjs';

/** The events kept (and written into the meta): the session's lifecycle and the stream's own. */
export const KEPT_EVENTS = ['server.connected', 'server.instance.disposed', 'session.created', 'session.status', 'session.idle', 'session.error', 'permission.asked', 'permission.replied', 'question.asked', 'question.replied', 'question.rejected'];

/** The session states that end a turn in OpenCode's events (1.18: `session.status` idle, and the older `session.idle`). */
export function isIdleEvent(event) {
  if (event?.type === 'session.idle') return true;
  return event?.type === 'session.status' && event.properties?.status?.type === 'idle';
}

/** Splits server-sent-event text into complete events' `data` and the rest (as opencode-events.ts parseSse). */
export function splitSse(text) {
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const data = [];
  for (const block of blocks) {
    const lines = block.split('\n').filter((l) => l.startsWith('data:'));
    if (lines.length > 0) data.push(lines.map((l) => l.slice(l.startsWith('data: ') ? 6 : 5)).join('\n'));
  }
  return { data, rest };
}

/**
 * Follows `http://127.0.0.1:<port>/event`: reconnects every 250 ms until a stream carries its
 * first event (`server.connected`), replacing one that carries nothing for 1 s (OpenCode 1.18.33
 * answers 200 and stays silent on a stream opened while it boots). The KEPT_EVENTS are kept with
 * the wall time each arrived (message deltas, plugin and catalog updates are dropped). Returns { events, connected(), waitConnected(capMs), firstIdleAfter(t, capMs), close() }.
 */
export function followOpenCodeEvents(port, log = () => {}) {
  const events = [];
  let live = false;
  let closed = false;
  let req;
  const connect = () => {
    if (closed) return;
    let gotByte = false;
    let retried = false;
    let buffer = '';
    const retry = () => { live = false; if (!retried) { retried = true; setTimeout(connect, 250); } };
    req = request({ host: '127.0.0.1', port, path: '/event', headers: { accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        gotByte = true;
        buffer += chunk;
        const { data, rest } = splitSse(buffer);
        buffer = rest;
        for (const d of data) {
          let event;
          try { event = JSON.parse(d); } catch { continue; } // not an event of OpenCode's
          const t = nowMs();
          if (!live) { live = true; log(`[events] connected (${event.type})`); }
          if (!KEPT_EVENTS.includes(event.type)) continue;
          events.push({ t, type: event.type, status: event.properties?.status?.type, idle: isIdleEvent(event) });
          if (event.type.startsWith('session.')) log(`[events] ${event.type}${event.properties?.status?.type ? ` ${event.properties.status.type}` : ''}`);
        }
      });
      res.on('end', retry);
      res.on('error', retry);
    });
    req.on('error', retry);
    req.setTimeout(1000, () => { if (!gotByte) req.destroy(); });
    req.end();
  };
  connect();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  return {
    events,
    connected: () => live,
    async waitConnected(capMs) {
      const t0 = nowMs();
      while (!live && nowMs() - t0 < capMs) await sleep(50);
      return live;
    },
    /** The first idle event after wall time `t`, waiting at most `capMs`; undefined when none came. */
    async firstIdleAfter(t, capMs) {
      const t0 = nowMs();
      for (;;) {
        const found = events.find((e) => e.t > t && e.idle);
        if (found || nowMs() - t0 >= capMs) return found;
        await sleep(25);
      }
    },
    close() { closed = true; req?.destroy(); },
  };
}
