/**
 * Offline tests of the capture lab's failure modes (failures.mjs, served by mock.mjs): each cause
 * in each dialect's own shape, as the CLIs' clients read it.
 */
import { describe, expect, it } from 'vitest';
import { FAILURES, failureAnswer } from './failures.mjs';
import { startMock } from './mock.mjs';
import { SCENARIOS } from './scenarios.mjs';

const NOW = Date.UTC(2026, 11, 7, 21, 30);

describe('failure answers', () => {
  it('a usage limit carries its reset in each dialect\'s own field', () => {
    const reset = Math.round((NOW + 3_600_000) / 1000);
    const anthropic = failureAnswer('anthropic', 'usage-limit', { nowMs: NOW, resetInMs: 3_600_000 });
    const responses = failureAnswer('responses', 'usage-limit', { nowMs: NOW, resetInMs: 3_600_000 });
    const gemini = failureAnswer('gemini', 'usage-limit', { nowMs: NOW, resetInMs: 3_600_000 });

    expect(anthropic).toMatchObject({ status: 429, headers: { 'anthropic-ratelimit-unified-status': 'rejected', 'anthropic-ratelimit-unified-reset': String(reset) } });
    expect(responses).toMatchObject({ status: 429, body: { error: { type: 'usage_limit_reached', resets_at: reset, resets_in_seconds: 3600 } } });
    expect(gemini.body.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3600s' });
  });

  it.each(['anthropic', 'responses', 'chat', 'gemini'])('%s: every cause is an HTTP error but network, which is no answer at all', (api) => {
    const statuses = FAILURES.map((failure) => failureAnswer(api, failure, { nowMs: NOW }));
    expect(statuses.map((a) => ('drop' in a ? 'drop' : a.status))).toEqual([429, 429, api === 'anthropic' ? 529 : 503, 401, 'drop', 400]);
    expect(failureAnswer(api, 'rate-limited', { nowMs: NOW }).headers?.['retry-after']).toBe('2');
  });

  it('a chat api-error can be a refused parameter rather than a context too long (OpenCode compacts on that one)', () => {
    expect(failureAnswer('chat', 'api-error', { nowMs: NOW }).body.error.code).toBe('context_length_exceeded');
    const refused = failureAnswer('chat', 'api-error', { nowMs: NOW, apiError: 'bad-parameter' });
    expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([400, 'unsupported_parameter', expect.not.stringMatching(/context|too long/i)]);
  });

  it('the mock serves a failure step and resets the connection for network', async () => {
    const mock = await startMock();
    try {
      mock.setScript([{ failure: 'auth' }, { failure: 'network' }, { text: 'ok', chunkMs: 0 }]);
      const post = () => fetch(`${mock.baseUrl}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, tools: [{ name: 'Bash' }] }) });

      const refused = await post();
      expect([refused.status, refused.headers.get('x-should-retry'), await refused.json()]).toEqual([401, 'false', { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }]);
      await expect(post()).rejects.toThrow();
      const answered = await post();
      // The whole stream, so its stream_end is logged before the events are read.
      await answered.text();
      expect(answered.status).toBe(200);
      expect(mock.events.filter((e) => e.type === 'stream_end').map((e) => e.error ?? null)).toEqual([401, 'network', null]);
    } finally {
      await mock.close();
    }
  });
});

describe('failure scenarios', () => {
  const rng = () => 0.5;
  const vary = (name: string, agent: string) => {
    const scenario = SCENARIOS[name];
    if (!scenario) throw new Error(`no scenario ${name}`);
    return scenario.vary(rng, agent);
  };
  const steps = (agent: string) => vary('fail-usage-limit', agent).script;

  it('gives back the quota after two refusals to a CLI that retries it for as long as it is left', () => {
    const script = steps('opencode');
    expect(script.map((s) => ('failure' in s ? `${String(s.failure)}${s.retryable ? ' retried' : ''}` : s.text ? 'answer' : '?'))).toEqual(['usage-limit retried', 'usage-limit retried', 'answer']);
  });

  it('refuses Continue nine times, as it names its retries only from the ninth request on', () => {
    expect(steps('continue').filter((s) => s.failure === 'usage-limit' && s.retryable)).toHaveLength(9);
  });

  it('refuses every request to a CLI that ends its turn on a used-up quota', () => {
    for (const agent of ['claude', 'codex', 'grok']) expect(steps(agent)).toEqual([expect.objectContaining({ failure: 'usage-limit', sticky: true })]);
  });

  it('refuses OpenCode a parameter in fail-api-error, and every other CLI a context too long', () => {
    expect(vary('fail-api-error', 'opencode').script[0]).toMatchObject({ failure: 'api-error', sticky: true, failureOptions: { apiError: 'bad-parameter' } });
    expect(vary('fail-api-error', 'qwen').script[0]?.failureOptions).toBeUndefined();
  });

  it('lets a retried turn end on the CLI giving up (Grok and Continue after three resets), and a refused one not', () => {
    const turnEnd = (name: string, agent: string) => vary(name, agent).actions.find((a) => a.do === 'turn_end');
    expect(turnEnd('fail-network', 'grok')).toMatchObject({ mayGiveUp: true });
    expect(turnEnd('fail-auth', 'grok')?.mayGiveUp).toBeUndefined();
  });
});
