// The ways a model API refuses, as each dialect says them (issue 33, "Error sub-states"): what
// the mock answers for a step `{ failure: 'usage-limit' | 'rate-limited' | 'overloaded' | 'auth'
// | 'network' | 'api-error' }`. Each answer is the real service's shape as the CLIs' own clients
// parse it (status, error body, the headers they read for a reset or a retry), so what a CLI
// draws against the mock is what it draws against the service.
//
//   usage-limit   a quota that resets at a time: Anthropic's unified rate-limit headers
//                 (`anthropic-ratelimit-unified-status: rejected`, `…-reset` epoch seconds) on a
//                 429; OpenAI Responses' `usage_limit_reached` with `resets_at` / `resets_in_seconds`;
//                 chat completions' `insufficient_quota`; Gemini's RESOURCE_EXHAUSTED with a
//                 per-day QuotaFailure and a RetryInfo delay
//   rate-limited  429 with `retry-after` (Gemini: a per-minute quota and RetryInfo)
//   overloaded    Anthropic 529 `overloaded_error`; OpenAI 503; Gemini 503 UNAVAILABLE
//   auth          401: a key that is not valid (or a login that expired)
//   network       no HTTP answer at all: the connection is reset, as when the server is down
//   api-error     a non-retryable 400 `invalid_request_error` (Gemini INVALID_ARGUMENT)
//
// `resetInMs` (usage-limit) says when the quota resets, from the time the answer is sent.
// `apiError: 'bad-parameter'` makes chat's api-error a 400 that is not about the context's length
// (`unsupported_parameter`): OpenCode 1.18.33 reads `context_length_exceeded` as a context to
// compact and re-sends the prompt, about once a second, for as long as it is left.

export const FAILURES = ['usage-limit', 'rate-limited', 'overloaded', 'auth', 'network', 'api-error'];

const DEFAULT_RESET_MS = 2 * 3600_000 + 17 * 60_000;

/**
 * The HTTP answer for `failure` in dialect `api` ('anthropic', 'responses', 'chat', 'gemini'):
 * `{ status, headers, body }`, or `{ drop: true }` for no answer (network). `nowMs` is wall time.
 */
export function failureAnswer(api, failure, { nowMs = Date.now(), resetInMs = DEFAULT_RESET_MS, retryAfterS = 2, apiError = 'context-length' } = {}) {
  const resetS = Math.round((nowMs + resetInMs) / 1000);
  const json = { 'content-type': 'application/json' };
  switch (failure) {
    case 'network':
      return { drop: true };
    case 'usage-limit':
      if (api === 'anthropic') {
        return {
          status: 429,
          headers: {
            ...json,
            'anthropic-ratelimit-unified-status': 'rejected',
            'anthropic-ratelimit-unified-reset': String(resetS),
            'anthropic-ratelimit-unified-representative-claim': 'five_hour',
            'anthropic-ratelimit-unified-5h-status': 'rejected',
            'anthropic-ratelimit-unified-5h-reset': String(resetS),
            'x-should-retry': 'false',
          },
          body: { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed your account\'s rate limit. Please try again later.' } },
        };
      }
      if (api === 'responses') {
        return {
          status: 429,
          headers: json,
          body: { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: resetS, resets_in_seconds: Math.round(resetInMs / 1000) } },
        };
      }
      if (api === 'chat') return { status: 429, headers: json, body: { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' } } };
      return {
        status: 429,
        headers: json,
        body: {
          error: {
            code: 429,
            message: 'You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 100',
            status: 'RESOURCE_EXHAUSTED',
            details: [
              { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', quotaValue: '100' }] },
              { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${Math.round(resetInMs / 1000)}s` },
            ],
          },
        },
      };
    case 'rate-limited':
      if (api === 'anthropic') return { status: 429, headers: { ...json, 'retry-after': String(retryAfterS) }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } } };
      if (api === 'gemini') {
        return {
          status: 429,
          headers: { ...json, 'retry-after': String(retryAfterS) },
          body: {
            error: {
              code: 429,
              message: 'Resource has been exhausted (e.g. check quota).',
              status: 'RESOURCE_EXHAUSTED',
              details: [
                { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', quotaValue: '10' }] },
                { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterS}s` },
              ],
            },
          },
        };
      }
      return { status: 429, headers: { ...json, 'retry-after': String(retryAfterS) }, body: { error: { message: 'Rate limit reached for requests per min. Please try again in 2s.', type: 'requests', code: 'rate_limit_exceeded' } } };
    case 'overloaded':
      if (api === 'anthropic') return { status: 529, headers: { ...json, 'retry-after': '1' }, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
      if (api === 'gemini') return { status: 503, headers: json, body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } } };
      return { status: 503, headers: { ...json, 'retry-after': '1' }, body: { error: { message: 'The server is overloaded or not ready yet.', type: 'server_error', code: 'server_is_overloaded' } } };
    case 'auth':
      // x-should-retry: false, which Anthropic's clients obey: without it Claude Code 2.1.332 retries a
      // 401 ten times over more than two minutes ("401 invalid x-api-key · retrying in 18s · attempt 6/10").
      if (api === 'anthropic') return { status: 401, headers: { ...json, 'x-should-retry': 'false' }, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
      if (api === 'gemini') return { status: 401, headers: json, body: { error: { code: 401, message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', status: 'UNAUTHENTICATED' } } };
      return { status: 401, headers: json, body: { error: { message: 'Incorrect API key provided: sk-mock. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', code: 'invalid_api_key' } } };
    case 'api-error':
      if (api === 'anthropic') return { status: 400, headers: { ...json, 'x-should-retry': 'false' }, body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content: the conversation is too long for this model' } } };
      if (api === 'gemini') return { status: 400, headers: json, body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } } };
      if (apiError === 'bad-parameter') return { status: 400, headers: json, body: { error: { message: 'Unsupported parameter: \'max_tokens\' is not supported with this model. Use \'max_completion_tokens\' instead.', type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } } };
      return { status: 400, headers: json, body: { error: { message: 'Invalid request: the conversation is too long for this model.', type: 'invalid_request_error', code: 'context_length_exceeded' } } };
    default:
      throw new Error(`unknown failure ${failure} (known: ${FAILURES.join(', ')})`);
  }
}
