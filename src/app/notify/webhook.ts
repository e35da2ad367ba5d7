/**
 * `notify_url`: every published state transition POSTed as JSON (core/records/transition-notice.ts)
 * to the user's webhook (ntfy, a Slack relay, a phone's push service). Off the session's hot
 * path: `send` only queues and returns; one delivery at a time runs on its own, in order.
 *
 * - A slow server: the queue holds up to WEBHOOK_QUEUE_MAX bodies, each try bounded by
 *   WEBHOOK_TIMEOUT_MS; past the bound the oldest is dropped (the newest state matters most)
 *   and that is said once.
 * - A down server (refused, unreachable, no answer, 429, 5xx): tried again after each of
 *   WEBHOOK_RETRY_DELAYS_MS, then given up with one warning per outage; the next transition is
 *   still tried, and a delivery that works again ends the outage.
 * - A redirect (3xx) is not followed (adapters/http-post.ts says why) and any other 4xx is not
 *   retried: both are a configuration to fix, said once.
 */
import { hostname } from 'node:os';
import { postJson, type PostOutcome } from '../../adapters/http-post.js';
import type { SessionRecord } from '../../core/records/session-record.js';
import { transitionNoticeBody } from '../../core/records/transition-notice.js';
import type { StateChangeEvent } from '../control/protocol.js';

export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Waits between tries of one body: three tries in all, the last ~5 s after the first failed. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [1_000, 4_000];
export const WEBHOOK_QUEUE_MAX = 64;
/** How long the wrapper, once the agent exited, waits for the last transitions to go out. */
export const WEBHOOK_EXIT_WAIT_MS = 2_000;

export interface WebhookOptions {
  readonly url: URL;
  readonly warn: (message: string) => void;
  readonly timeoutMs?: number;
  readonly retryDelaysMs?: readonly number[];
  readonly queueMax?: number;
}

export interface Webhook {
  /** Queues one JSON body; never throws, never waits. */
  send(body: string): void;
  /** Resolves once everything queued was delivered or given up, or after `maxWaitMs` (then said once), whichever is first. */
  drain(maxWaitMs: number): Promise<void>;
  /** Bodies queued and not yet delivered or given up (the one in flight included). */
  pending(): number;
}

/** The URL as said in warnings: its origin only, because the path or query often is the secret (Slack, ntfy tokens). */
export function webhookOrigin(url: URL): string {
  return `${url.origin}/…`;
}

type Verdict = { readonly kind: 'delivered' } | { readonly kind: 'retry' | 'give-up'; readonly why: string };

function verdict(outcome: PostOutcome): Verdict {
  if (outcome.kind === 'failed') return { kind: 'retry', why: outcome.reason };
  const { status } = outcome;
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status >= 300 && status < 400) {
    return { kind: 'give-up', why: `answered ${status}, a redirect${outcome.location === undefined ? '' : ` to ${outcome.location.slice(0, 200)}`}, which is not followed (set notify_url to the final address)` };
  }
  if (status === 429 || status >= 500) return { kind: 'retry', why: `answered ${status}` };
  return { kind: 'give-up', why: `answered ${status}` };
}

export function createWebhook(options: WebhookOptions): Webhook {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const delays = options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  const queueMax = options.queueMax ?? WEBHOOK_QUEUE_MAX;
  const where = webhookOrigin(options.url);
  const queue: string[] = [];
  let running = false;
  let inOutage = false;
  let saidDropped = false;
  const idle = new Set<() => void>();

  /** Why the last try failed, for the exit's warning. */
  let lastFailure = '';
  const warnOnce = (message: string): void => {
    if (inOutage) return;
    inOutage = true;
    options.warn(`notify_url ${where}: ${message}`);
  };

  const deliver = async (body: string): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const result = verdict(await postJson(options.url, body, timeoutMs));
      if (result.kind === 'delivered') {
        inOutage = false;
        return;
      }
      lastFailure = result.why;
      const delay = delays[attempt];
      if (result.kind === 'give-up' || delay === undefined) {
        warnOnce(`a notification was not delivered (${result.kind === 'retry' ? `${result.why}, ${attempt + 1} tries` : result.why}); later ones are still tried`);
        return;
      }
      await new Promise<void>((resolve) => setTimeout(resolve, delay).unref());
    }
  };

  const run = async (): Promise<void> => {
    running = true;
    try {
      // The head stays queued while it is tried, so pending() and the bound count it.
      for (let body = queue[0]; body !== undefined; body = queue[0]) {
        await deliver(body);
        if (queue[0] === body) queue.shift();
      }
    } catch (error) {
      queue.length = 0;
      options.warn(`notify_url ${where}: notifications stopped (${error instanceof Error ? error.message : String(error)})`);
    } finally {
      running = false;
      for (const resolve of idle) resolve();
      idle.clear();
    }
  };

  return {
    send(body) {
      if (queue.length >= queueMax) {
        // Never the head: it is in flight, and dropping it would send it twice.
        queue.splice(1, 1);
        if (!saidDropped) {
          saidDropped = true;
          options.warn(`notify_url ${where}: the server is slower than the agent changes state; the oldest notifications were dropped (at most ${queueMax} wait)`);
        }
      }
      queue.push(body);
      // Started on the next turn of the event loop: the tick that published the change finishes first.
      if (!running) {
        running = true;
        setImmediate(() => void run());
      }
    },
    drain(maxWaitMs) {
      if (!running && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => {
        // Not unref'd: at exit this timer is what keeps the process alive for the last deliveries.
        const timer = setTimeout(done, maxWaitMs);
        function done(): void {
          clearTimeout(timer);
          idle.delete(done);
          if (queue.length > 0) warnOnce(`${queue.length} notification${queue.length === 1 ? ' was' : 's were'} not delivered before agentwrap exited (${lastFailure === '' ? 'no answer yet' : lastFailure})`);
          resolve();
        }
        idle.add(done);
      });
    },
    pending: () => queue.length,
  };
}

/** A cause said once for the account (cause-notices.ts): which, and whether it appeared or lifted. */
export interface AccountCause {
  readonly cause: string;
  readonly lifted: boolean;
}

/**
 * The publisher's onTransition for `notify_url`: each change of this session's state, with its
 * record's facts, queued for the webhook. A change of cause alone (`from` = `to`) is not sent
 * here: a cause is said once per account, by cause-notices.ts, through `accountCause`.
 */
export function transitionsToWebhook(
  webhook: Pick<Webhook, 'send'>,
  host: string = hostname(),
): (event: StateChangeEvent, record: SessionRecord, accountCause?: AccountCause) => void {
  return (event, record, accountCause) => {
    if (accountCause === undefined && event.from === event.to) return;
    webhook.send(
      transitionNoticeBody({
        event: accountCause === undefined ? 'transition' : accountCause.lifted ? 'cause-lifted' : 'cause',
        agent: event.agent,
        session: event.session,
        state: event.to,
        previous: event.from,
        reason: accountCause?.cause ?? record.reason,
        until: record.until === undefined || accountCause?.lifted === true ? undefined : new Date(record.until).toISOString(),
        // The dialog a blocked agent shows, as its pack reads it (docs/answer.md): what to answer.
        question: accountCause === undefined ? record.dialog?.question : undefined,
        options: accountCause === undefined ? record.dialog?.options : undefined,
        host,
        cwd: record.cwd,
        time: new Date(event.t).toISOString(),
      }),
    );
  };
}

/** A live session's `notify_url`: what the publisher calls on each transition, and what shutdown waits on. */
export function notifyUrlWebhook(url: URL, warn: (message: string) => void): { readonly onTransition: ReturnType<typeof transitionsToWebhook>; readonly drain: Webhook['drain'] } {
  const webhook = createWebhook({ url, warn });
  return { onTransition: transitionsToWebhook(webhook), drain: (maxWaitMs) => webhook.drain(maxWaitMs) };
}
