// Scenarios for the model API's refusals (issue 33, "Error sub-states"): one per cause of
// failures.mjs, each written so its labels follow from what the mock did and what the person must
// do (docs/capture.md, "Failure scenarios"):
//
//   fail-usage-limit  every request: the quota is used up until a reset time     -> working, idle (done);
//                     Gemini asks "Keep trying / Stop": blocked. A CLI that retries a used-up
//                     quota on its own (QUOTA_RETRIERS): two refusals (Continue nine), then the quota is back
//                     and an answer                                              -> working throughout, idle;
//                     droid: four, all its tries                                 -> working, idle (done)
//   fail-rate-limited two 429s with retry-after 2 s, then an answer              -> working throughout, idle
//   fail-overloaded   two overloaded answers, then an answer                     -> working throughout, idle
//   fail-auth         every request: 401, the key or login is not valid          -> working, blocked (a login)
//   fail-network      three connection resets, then an answer                    -> working throughout, idle;
//                     a CLI that gives up after three tries: working, idle (done) at the last reset;
//                     Kilo waits for its network until the person stops it       -> working, idle
//   fail-api-error    every request: a 400 that no retry fixes                   -> working, idle (done);
//                     OpenCode: a refused parameter, not a context too long

const pick = (rng, xs) => xs[Math.floor(rng() * xs.length)];

const PROMPTS = ['what does app.js do?', 'describe app.js', 'summarize the notes'];

/**
 * A turn the mock refuses on every request (`sticky`): it ends on the refusal, in `state` (a
 * function of the agent where CLIs differ).
 */
function refusedTurn(failure, stateOf, failureOptionsOf = () => undefined) {
  return {
    vary: (rng, agent) => ({
      script: [{ think: 400 + Math.floor(rng() * 400), failure, sticky: true, failureOptions: failureOptionsOf(agent) }],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, PROMPTS) },
        { do: 'turn_end', state: typeof stateOf === 'function' ? stateOf(agent) : stateOf, capMs: 90_000 },
        { do: 'idle', ms: 4000 },
      ],
    }),
  };
}

/**
 * A turn the mock refuses `times` times, retried by the CLI on its own, then answers. A CLI that
 * gives up on the last refusal instead ends the turn there (the driver's `mayGiveUp`).
 */
function retriedTurn(failure, times) {
  return {
    vary: (rng) => ({
      script: [
        ...Array.from({ length: times }, () => ({ think: 300, failure, retryable: true })),
        { think: 600 + Math.floor(rng() * 400), text: 'Sorry for the wait: app.js has one function, add(a, b).', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, PROMPTS) },
        { do: 'turn_end', capMs: 120_000, mayGiveUp: true },
        { do: 'idle', ms: 3000 },
      ],
    }),
  };
}

/**
 * The CLIs that retry chat's `insufficient_quota` on their own with growing waits for as long as
 * they are left (OpenCode 1.18.33, Copilot 1.0.102, Cline 3.0.65, Qwen Code 0.24.4: more than
 * 80 s; Kilo Code 7.7.7 about a minute, five retries; Continue 1.5.47 ten times), and how many
 * refusals each gets before the quota comes back. Refused on every request they would keep
 * working past any wait the driver could choose, so their labels would say done while they still
 * work; this way the recording is the retry, with its cause where the CLI draws one, then the
 * answer. Two, but Continue nine: its OpenAI client tries each request three times, and Continue
 * draws its own retries ("Retrying request (1/9). Error: 429 …") only from its third on
 * (`hiddenRetries: 2`), so the ninth refusal is the first it names.
 *
 * droid 0.215.0 gets four, all of its tries: it sends the prompt four times (5, 5 and 9 s apart),
 * drawing no cause, then gives up and names it ("BYOK Error: 429 You exceeded your current
 * quota"). A refused turn waits 8 s for a retry (the driver's ERROR_RETRY_WAIT_MS) and took its
 * 9 s wait for the turn's end; a retried one waits until no request came for 15 s with the
 * screen still, so its labels end where droid gives up.
 */
export const QUOTA_RETRIERS = new Map([['opencode', 2], ['kilo', 2], ['copilot', 2], ['continue', 9], ['cline', 2], ['qwen', 2], ['droid', 4]]);

/**
 * Kilo Code 7.7.7 takes a reset connection for the machine being offline (its session.network):
 * it sends no other request, logs "Connection reset by server waiting for network", and probes
 * https://kilo.ai, https://example.com and https://cloudflare.com every 3 s, going on 10 s after
 * one answers. The lab's network has only loopback, so none ever does, and it draws nothing but
 * its plain "esc interrupt" row (its "Waiting for network... Press Esc to stop this turn." panel
 * never showed). It waits, working, until the person stops the turn (Esc twice), 30 s on.
 */
const waitsForNetwork = {
  vary: (rng) => ({
    script: [{ think: 300, failure: 'network', sticky: true }],
    actions: [
      { do: 'idle', ms: 1000 },
      { do: 'prompt', text: pick(rng, PROMPTS) },
      { do: 'interrupt', afterMs: 30_000 },
      { do: 'idle', ms: 3000 },
    ],
  }),
};

const usedUpQuota = refusedTurn('usage-limit', (agent) => (agent === 'gemini' ? 'blocked' : 'idle'));

export const FAILURE_SCENARIOS = {
  // Gemini CLI 0.61.0 answers a used-up quota with a dialog ("Usage limit reached for all Pro
  // models … ● 1. Keep trying  2. Stop"): the person must choose, so it ends blocked.
  'fail-usage-limit': {
    vary: (rng, agent) => {
      const refusals = QUOTA_RETRIERS.get(agent);
      return (refusals ? retriedTurn('usage-limit', refusals) : usedUpQuota).vary(rng, agent);
    },
  },
  'fail-rate-limited': retriedTurn('rate-limited', 2),
  'fail-overloaded': retriedTurn('overloaded', 2),
  'fail-auth': refusedTurn('auth', 'blocked'),
  'fail-network': {
    vary: (rng, agent) => (agent === 'kilo' ? waitsForNetwork : retriedTurn('network', 3)).vary(rng, agent),
  },
  // OpenCode 1.18.33 compacts and re-sends on a 400 `context_length_exceeded` for as long as it is
  // left: it is refused a parameter instead, a 400 it does not retry (failures.mjs).
  'fail-api-error': refusedTurn('api-error', 'idle', (agent) => (agent === 'opencode' ? { apiError: 'bad-parameter' } : undefined)),
};
