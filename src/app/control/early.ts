/**
 * The session's control socket, opened right after the spawn, before the live session has
 * loaded (it waits for the agent's first screen: launch/first-screen.ts). The agent's hooks
 * may report before that (Claude's SessionStart, a user's own hook calling `agentwrap report`),
 * and a report finding no socket is dropped at once (it must never slow the hook down), so the
 * socket is there from the start: a report is answered at once and kept until the live
 * session takes over; any other request (explain, ack, a subscription) waits for it.
 * Cost on the agent's start: the control-socket module (~6 ms of CPU) and one listen.
 */
import type { ControlHandlers, ControlParams, ControlServer } from './socket.js';

export interface EarlyControl {
  /** The listening server; rejects when it could not start (the live session says why). */
  readonly server: Promise<ControlServer>;
  /** The live session's handlers: the kept reports go to them, in order, and so does everything after. */
  attach(handlers: ControlHandlers): void;
}

/** Listens on `path` (prepared: app/control/socket-path.ts) for a session that is still loading. */
export function openEarlyControl(path: string): EarlyControl {
  const pending = new PendingHandlers();
  const server = import('./socket.js').then(({ startControlServer }) => startControlServer(path, pending));
  // Awaited by the live session, which reports a failure; never unhandled meanwhile.
  server.catch(() => undefined);
  return { server, attach: (handlers) => pending.attach(handlers) };
}

/** Handlers that keep reports and hold every other request until the real ones attach. */
export class PendingHandlers implements ControlHandlers {
  private real: ControlHandlers | undefined;
  private readonly keptReports: ControlParams[] = [];
  private resolveReal: (handlers: ControlHandlers) => void = () => undefined;
  private readonly ready = new Promise<ControlHandlers>((resolve) => {
    this.resolveReal = resolve;
  });

  attach(handlers: ControlHandlers): void {
    if (this.real !== undefined) return;
    this.real = handlers;
    for (const params of this.keptReports.splice(0)) {
      try {
        handlers.report(params);
      } catch (error) {
        // A report the session refuses (bad params) was already answered; nobody is left to tell.
        void error;
      }
    }
    this.resolveReal(handlers);
  }

  report(params: ControlParams): unknown {
    if (this.real !== undefined) return this.real.report(params);
    this.keptReports.push(params);
    return { kept: true };
  }

  explain(params: ControlParams): Promise<unknown> {
    return this.ready.then((real) => real.explain(params));
  }

  capture(params: ControlParams): Promise<unknown> {
    return this.ready.then((real) => real.capture(params));
  }

  ack(params: ControlParams): Promise<unknown> {
    return this.ready.then((real) => real.ack(params));
  }

  history(params: ControlParams): Promise<unknown> {
    return this.ready.then((real) => {
      if (real.history === undefined) throw new Error('this session keeps no history');
      return real.history(params);
    });
  }

  answer(params: ControlParams): Promise<unknown> {
    return this.ready.then((real) => {
      if (real.answer === undefined) throw new Error('this session does not take answers');
      return real.answer(params);
    });
  }

  send(params: ControlParams): Promise<unknown> {
    return this.ready.then((real) => {
      if (real.send === undefined) throw new Error('this session does not take prompts');
      return real.send(params);
    });
  }

  info(): ControlParams {
    return this.real?.info?.() ?? {};
  }

  subscribe(emit: Parameters<ControlHandlers['subscribe']>[0]): () => void {
    return this.later((real) => real.subscribe(emit));
  }

  screen(emit: Parameters<NonNullable<ControlHandlers['screen']>>[0]): () => void {
    return this.later((real) => real.screen?.(emit) ?? (() => undefined));
  }

  /** A subscription made now and started once the real handlers are there; ended either way. */
  private later(subscribe: (real: ControlHandlers) => () => void): () => void {
    let unsubscribe: (() => void) | undefined;
    let isEnded = false;
    void this.ready.then((real) => {
      if (!isEnded) unsubscribe = subscribe(real);
    });
    return () => {
      isEnded = true;
      unsubscribe?.();
    };
  }
}
