/**
 * The causes of issue 33 on real recordings (recordings/<agent>/habitat-tmux/fail-*, made by the
 * capture lab against its mock's failure modes, test/capture/failures.mjs): replayed through the
 * bundled packs, each names the cause the person needs while the CLI shows it, with the state
 * that says what to do (docs/errors.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../../src/app/pack-registry.js';
import { packForRecording, readRecordingFile } from '../../../src/app/recording/files.js';
import { replayRecording } from '../../../src/app/recording/replay.js';
import { evaluatePack } from '../../../src/core/packs/evaluate.js';
import { fixtureInput, parseFixture } from '../../../src/core/packs/fixture.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const registry = loadDefaultRegistry({});

/** The published (state, reason) pairs over the recording, each once, in order. */
async function causes(relativePath: string): Promise<string[]> {
  const loaded = readRecordingFile(join(ROOT, relativePath));
  const { pack } = packForRecording(registry, loaded, undefined);
  const pairs: string[] = [];
  await replayRecording(loaded.recording, {
    pack,
    keyInputAtS: loaded.driverInputAtS,
    onTick: (_entry, { session }) => {
      const { state, reason } = session.state.session;
      const pair = `${state}${reason === undefined ? '' : ` ${reason}`}`;
      if (pairs.at(-1) !== pair) pairs.push(pair);
    },
  });
  return pairs;
}

const CASES: readonly (readonly [string, readonly string[]])[] = [
  // Claude's first two retries say only "API error · retrying in 2s" (no cause yet); between them
  // a request is in flight under a plain spinner; the turn then goes on and ends.
  ['claude/habitat-tmux/fail-rate-limited-80x24', ['working', 'working api-error', 'working', 'working api-error', 'working', 'done']],
  ['claude/habitat-tmux/fail-overloaded-80x24', ['working', 'working api-error', 'working', 'working api-error', 'working', 'done']],
  // From the third try it names the cause: "Connection dropped (ECONNRESET) · retrying in 2s".
  ['claude/habitat-tmux/fail-network-80x24', ['working', 'working api-error', 'working', 'working api-error', 'working', 'working network', 'working', 'done']],
  ['claude/habitat-tmux/fail-usage-limit-80x24', ['working', 'done usage-limit']],
  ['claude/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // "⎿  Invalid API key · Fix external API key" under the prompt: the person must log in.
  ['claude/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  // Codex names a retried 429 and 401 under its status row from the first try; a 503 and a reset
  // connection it retries under a plain "Working" row, so there is no cause to read.
  ['codex/habitat-tmux/fail-rate-limited-80x24', ['working', 'working rate-limited', 'working', 'done']],
  ['codex/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['codex/habitat-tmux/fail-network-80x24', ['working', 'done']],
  ['codex/habitat-tmux/fail-usage-limit-80x24', ['working', 'done usage-limit']],
  ['codex/habitat-tmux/fail-auth-80x24', ['working', 'working auth', 'blocked auth']],
  ['codex/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // Gemini retries 429s, 503s and resets silently under "Thinking..." (for up to 45 s): no cause to
  // read. A used-up quota is its "Usage limit reached … Keep trying / Stop" dialog.
  ['gemini/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['gemini/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['gemini/habitat-tmux/fail-network-80x24', ['working', 'done']],
  ['gemini/habitat-tmux/fail-usage-limit-80x24', ['working', 'blocked usage-limit']],
  ['gemini/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['gemini/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // Qwen Code: "✕ [API Error: 401 Incorrect API key provided: …] (Press Ctrl+Y to retry)".
  ['qwen/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['qwen/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // A used-up quota and an overloaded server it retries under its plain spinner ("Shuffling
  // punchlines... (2s · esc to cancel)"): no cause to read. The lab's quota comes back after two refusals.
  ['qwen/habitat-tmux/fail-usage-limit-80x24', ['working', 'done']],
  ['qwen/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  // OpenCode replaces "esc interrupt" with the API's message and "[retrying in 2s attempt #2]" while
  // it retries (without the retry rules that row read done); a 401 it does not retry.
  ['opencode/habitat-tmux/fail-rate-limited-80x24', ['working', 'working rate-limited', 'working', 'working rate-limited', 'working', 'done']],
  ['opencode/habitat-tmux/fail-overloaded-80x24', ['working', 'working overloaded', 'working', 'working overloaded', 'working', 'done']],
  ['opencode/habitat-tmux/fail-network-80x24', ['working', 'working network', 'working', 'working network', 'working', 'working network', 'working', 'done']],
  ['opencode/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  // A 400 it does not retry (an unsupported parameter): the error as a barred block under the
  // prompt's, its toast over the gap between them for the first 5 s.
  ['opencode/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // A used-up quota it retries for as long as it is left ("You exceeded your current quota, …
  // retrying in 2s attempt #2]"); the lab's quota comes back after two refusals.
  ['opencode/habitat-tmux/fail-usage-limit-80x24', ['working', 'working usage-limit', 'working', 'working usage-limit', 'working', 'done']],
  // Copilot CLI retries 429s, 503s and resets under its plain "◉ Working" row (its transcript says
  // only "Request failed due to a transient API error. Retrying..."); it ends a turn on a 401 with
  // "✗ Authentication failed with provider … (HTTP 401)", on a 400 with "✗ 400 Invalid request: …".
  ['copilot/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['copilot/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['copilot/habitat-tmux/fail-network-80x24', ['working', 'done']],
  // A used-up quota it retries silently as long as it is left; the lab's quota comes back after two refusals.
  ['copilot/habitat-tmux/fail-usage-limit-80x24', ['working', 'done']],
  ['copilot/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['copilot/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // pi retries 429s and 503s under its plain "⠋ Working..." loader; a dropped connection shows
  // "Error: Connection error." over "⠦ Retrying (1/3) in 2s..."; a 401 and a 400 end the turn with
  // "Error: 401 …" / "Error: 400 …" right above the editor.
  ['pi/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['pi/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['pi/habitat-tmux/fail-network-80x24', ['working', 'working network', 'working', 'done']],
  // A used-up quota: "Error: 429 You exceeded your current quota, …" over its loader three times,
  // then "Error: Retry failed after 3 attempts: 429 You exceeded your current quota, …".
  ['pi/habitat-tmux/fail-usage-limit-80x24', ['working', 'working usage-limit', 'done usage-limit']],
  ['pi/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['pi/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // Grok CLI retries 429s and 503s under its plain "\\ Analyzing... (5s · … esc to interrupt)" row;
  // it ends a turn on a 401 or a 400 with "⏺ Sorry, I encountered an error: Grok API error: 401 …".
  ['grok/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['grok/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['grok/habitat-tmux/fail-usage-limit-80x24', ['working', 'done usage-limit']],
  // It gives up on a dropped connection after three tries: "⏺ Sorry, I encountered an error: Grok
  // API error: Connection error.".
  ['grok/habitat-tmux/fail-network-80x24', ['working', 'done network']],
  ['grok/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['grok/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // Continue CLI ends a turn on a 401 or a 400 with "Error: 401 …" / "Error: 400 …" right above
  // its input box.
  // It retries 429s and 503s under its plain "( 3s • esc to interrupt )" row: no cause to read.
  ['continue/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['continue/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  // A used-up quota it retries: from its client's ninth request on it draws "Retrying request (1/9).
  // Error: 429 You exceeded your current quota, …" above the prompt; the lab's quota then comes back.
  ['continue/habitat-tmux/fail-usage-limit-80x24', ['working', 'working usage-limit', 'done']],
  // It gives up on a dropped connection after three tries: "Error: Connection error.".
  ['continue/habitat-tmux/fail-network-80x24', ['working', 'done network']],
  ['continue/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['continue/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // Cline ends a turn on a 401 with "* Error: Incorrect API key provided: …" and on a 400 with
  // "*Error: The request exceeds the model's context window …", right above its input.
  // A retried 429, 503 or reset under its plain "⠹ Thinking... (esc to cancel)" row: no cause to read.
  ['cline/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['cline/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['cline/habitat-tmux/fail-network-80x24', ['working', 'done']],
  ['cline/habitat-tmux/fail-usage-limit-80x24', ['working', 'done']],
  ['cline/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['cline/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // droid ends a turn on a 401 or a 400 with "●  BYOK Error: 401 …" and its troubleshooting rows.
  ['droid/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['droid/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // It retries 429s, 503s and resets under "⠉ Retrying the model request (attempt 2)...": no cause.
  ['droid/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['droid/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['droid/habitat-tmux/fail-network-80x24', ['working', 'done']],
  // A used-up quota: four tries under that row, then "●  BYOK Error: 429 You exceeded your current
  // quota, …" right above its autonomy row.
  ['droid/habitat-tmux/fail-usage-limit-80x24', ['working', 'done usage-limit']],
  // Letta Code writes each try as "• Provider stream error, retrying (attempt 1/3, in 1s): 429: …"
  // right over its live row; a quota, a 401 and a 400 end the turn with the backend's error as JSON
  // ("detail": "401: …") over "⚠ Something went wrong? Use /feedback to report issues.".
  ['letta/habitat-tmux/fail-rate-limited-80x24', ['working', 'working rate-limited', 'done']],
  ['letta/habitat-tmux/fail-overloaded-80x24', ['working', 'working overloaded', 'done']],
  ['letta/habitat-tmux/fail-network-80x24', ['working', 'working network', 'done']],
  ['letta/habitat-tmux/fail-usage-limit-80x24', ['working', 'done usage-limit']],
  ['letta/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['letta/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // Kilo Code, an OpenCode fork, puts the API's words and "[retrying in 2s attempt #1]" in its status
  // row as OpenCode does, clipped at the right edge; a 401 and a given-up compaction end the turn
  // with a barred error block over the turn's ▣ line.
  ['kilo/habitat-tmux/fail-rate-limited-80x24', ['working', 'working rate-limited', 'working', 'working rate-limited', 'working', 'done']],
  ['kilo/habitat-tmux/fail-overloaded-80x24', ['working', 'working overloaded', 'working', 'done']],
  ['kilo/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['kilo/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
  // A reset connection: Kilo waits for its network (it probes the internet, which the lab's
  // loopback-only network never reaches) under its plain "esc interrupt" row, until the person
  // stops the turn: no cause drawn, so none published.
  ['kilo/habitat-tmux/fail-network-80x24', ['working', 'idle']],
  // A used-up quota it retries ("…exceeded your current quota, …" over "in 3s attempt #2]"), given
  // back by the lab after two refusals.
  ['kilo/habitat-tmux/fail-usage-limit-80x24', ['working', 'working usage-limit', 'working', 'working usage-limit', 'working', 'done']],
  // Oh My Pi retries 429s, 503s, resets and a used-up quota under its plain "⎋ Working…" row; it
  // ends a turn on a 401 or a 400 with a "✘ 401 …" banner ("Dismissed when you send your next
  // message."), on the quota with "Error: Retry failed after 1 attempts: … 429 You exceeded …".
  ['omp/habitat-tmux/fail-rate-limited-80x24', ['working', 'done']],
  ['omp/habitat-tmux/fail-overloaded-80x24', ['working', 'done']],
  ['omp/habitat-tmux/fail-network-80x24', ['working', 'done']],
  ['omp/habitat-tmux/fail-usage-limit-80x24', ['working', 'done usage-limit']],
  ['omp/habitat-tmux/fail-auth-80x24', ['working', 'blocked auth']],
  ['omp/habitat-tmux/fail-api-error-80x24', ['working', 'done api-error']],
];

/**
 * Screens of earlier runs that were not kept (the CLI retried past the capture driver's retry
 * wait, so their labels could not be trusted; docs/errors.md), cut where the turn had really
 * ended; the recordings above that replaced them reach the same screens.
 */
const SCREENS: readonly (readonly [string, string, string])[] = [
  // "●  BYOK Error: 429 You exceeded your current quota, …" after about 23 s of retries.
  ['droid', 'idle_usage-limit-429_habitat-tmux-fail-usage-limit-80x24.txt', 'usage-limit'],
  // Kilo's status row: "⬝You⬝exceeded your current quota, please check your plan and billing
  // details." over "in 3s attempt #2]" (the "[retrying" clipped at the right edge).
  ['kilo', 'working_retrying-usage-limit_habitat-tmux-fail-usage-limit-80x24.txt', 'usage-limit'],
];

describe('failure causes on the recordings', () => {
  it.each(CASES)('%s publishes %j', async (name, expected) => {
    const file = `recordings/${name}.cast`;
    expect(existsSync(join(ROOT, file))).toBe(true);
    const pairs = await causes(file);
    // The prompt's turn: from the last working before the first done or blocked, to it (the start-up and the exit are no cause);
    // a turn the person stopped ends on the idle after its first working.
    const ended = pairs.findIndex((p) => p.startsWith('done') || p.startsWith('blocked'));
    const firstWorking = pairs.findIndex((p) => p.startsWith('working'));
    const end = ended !== -1 ? ended : pairs.findIndex((p, i) => i > firstWorking && p.startsWith('idle'));
    const start = pairs.slice(0, end).findLastIndex((p) => !p.startsWith('working')) + 1;
    expect(pairs.slice(start, end + 1)).toEqual(expected);
  });

  it.each(SCREENS)('%s %s names %s', (agent, name, reason) => {
    const pack = registry.packForAgent(agent)?.compiled;
    if (pack === undefined) throw new Error(`no bundled ${agent} pack`);
    const fixture = parseFixture(readFileSync(join(ROOT, 'fixtures', agent, name), 'utf8'));
    expect(evaluatePack(pack, fixtureInput(fixture)).winner?.reason).toBe(reason);
  });
});
