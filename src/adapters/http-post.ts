/**
 * One JSON POST to an http(s) URL, for the notification webhook (`notify_url`). Redirects are
 * not followed: a 3xx answer is returned as it is (with its Location), because re-sending the
 * body to an address the user never configured would hand a notification (and whatever its
 * URL's token authorizes) to someone else. Only the answer's status matters: its body is not
 * read, the socket is closed as soon as the status line and headers arrived.
 */
import type http from 'node:http';

export type PostOutcome =
  | { readonly kind: 'answered'; readonly status: number; readonly location?: string }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * POSTs `body` (JSON text) to `url` and resolves with the server's status, or why there was
 * none (refused, unreachable, no answer within `timeoutMs` from the start). Never rejects.
 */
export async function postJson(url: URL, body: string, timeoutMs: number): Promise<PostOutcome> {
  // Loaded at the first notification, not with the session: node:https brings TLS and OpenSSL,
  // ~1.2 MB of every wrapper's memory (most sessions have no notify_url).
  const client = url.protocol === 'https:' ? (await import('node:https')).default : (await import('node:http')).default;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let request: http.ClientRequest;
    try {
      request = client.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'agentwrap' },
        // No connection reuse: one notification now and then, and a kept-alive socket would hold the process open.
        agent: false,
      });
    } catch (error) {
      resolve({ kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    // The whole exchange, connect included, is bounded: a server that accepts and never answers costs timeoutMs.
    const timer = setTimeout(() => {
      settle({ kind: 'failed', reason: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    timer.unref();
    request.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'failed', reason: error.code ?? error.message }));
    request.on('response', (response) => {
      const location = response.headers.location;
      settle({ kind: 'answered', status: response.statusCode ?? 0, ...(location === undefined ? {} : { location }) });
      response.on('error', () => undefined);
      response.destroy();
    });
    request.end(body);
  });
}
