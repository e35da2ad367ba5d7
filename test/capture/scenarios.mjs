// Scenarios: what the mock model answers (`script`, consumed by main requests in order) and what
// the driver does (`actions`). Agent-independent: keys come from agents.mjs. `vary(rng)` lets a
// scenario differ a little between sizes (prompt wording, timings) so a pack cannot memorize
// one exact transcript.
//
// Actions:
//   { do: 'prompt', text }         type text with human delays, then submit (-> working)
//   { do: 'approve' }              wait for the next tool call from the mock, pause like a human,
//                                  press the agent's approve key (blocked -> working)
//   { do: 'deny' }                 same, with the deny key
//   { do: 'turn_end', state? }     wait until the turn is over (final stream ended, or nothing
//                                  more requested after a deny), then let the CLI settle; the
//                                  turn ends `idle` unless `state` says otherwise (a refused
//                                  login ends `blocked`: the person must log in)
//   { do: 'resize', cols, rows, afterFirstByteMs }  resize while the current turn streams
//   { do: 'idle', ms }             do nothing (idle)
//   { do: 'startup' }              answer the first-run dialogs (agents.mjs `startup`)
//   { do: 'auto_tool' }            wait for a tool call the CLI runs without asking (working)
//   { do: 'interrupt', afterFirstByteMs }  press the interrupt key mid-answer (-> idle);
//                                  `afterMs` instead: that long after the prompt, answer or not
//   { do: 'keys', keys }           keys typed at an idle prompt (menus): no transition
//   approve/deny with `keys`       answer a dialog that takes several keys (the last one answers)
//   prompt with `whileStreaming`   a second prompt typed while the answer streams (queued)
//
// A scenario's `seed` is handed to seed.mjs (`allowShell`, `defaultMode`, `bare`, `codexSandbox`,
// `openCodePlanMode`); `agents` lists the CLIs it is written for (default: all). `vary(rng, agent)`
// may script each CLI's own tools.

import { FAILURE_SCENARIOS } from './failure-scenarios.mjs';

const pick = (rng, xs) => xs[Math.floor(rng() * xs.length)];

const TRAP_TEXT = [
  'Here is what a status line looks like, quoted for your docs:',
  '',
  '    ⠋ Working (12s • esc to interrupt)',
  '    ✻ Concocting… (3s · ↓ 42 tokens · esc to interrupt)',
  '',
  'A permission prompt reads: "Do you want to proceed?" followed by',
  '',
  '    ❯ 1. Yes',
  '      2. No',
  '    Esc to cancel · Tab to amend',
  '',
  'and another one: "Would you like to run the following command?"',
  '    › 1. Yes, proceed (y)',
  '    Press enter to confirm or esc to cancel',
  '',
  'Titles like "[ ! ] Action Required" or "✋ Action Required" are just strings here.',
  'Nothing is waiting for you: this answer is complete.',
].join('\n');

export const SCENARIOS = {
  startup: {
    firstRun: true,
    vary: (rng) => ({
      script: [{ think: 600 + Math.floor(rng() * 600), text: pick(rng, ['Hi! Ready when you are.', 'Hello. What shall we build?']), chunkMs: 40 }],
      actions: [{ do: 'startup' }, { do: 'idle', ms: 1500 }, { do: 'prompt', text: pick(rng, ['hello', 'hi there']) }, { do: 'turn_end' }, { do: 'idle', ms: 2500 }],
    }),
  },
  simple: {
    vary: (rng) => ({
      script: [{
        think: 900 + Math.floor(rng() * 900),
        text: pick(rng, [
          'The README describes a tiny demo project with one function, `add(a, b)`, in app.js.',
          'This project holds a README, an app.js exporting add(a, b), and a notes file with one todo.',
        ]),
        chunkMs: 45 + Math.floor(rng() * 30),
      }],
      actions: [
        { do: 'idle', ms: 1200 },
        { do: 'prompt', text: pick(rng, ['summarize this project in one sentence', 'what is in this folder?']) },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  approve: {
    vary: (rng) => ({
      script: [
        { think: 800, text: 'I will create the test file first.', chunkMs: 40, tool: { command: pick(rng, ['touch app.test.js', 'mkdir -p tests && touch tests/add.test.js']), description: 'Create the test file' } },
        { think: 700 + Math.floor(rng() * 800), text: 'Created the test file. Next you can fill in the cases.', chunkMs: 45 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['create an empty test file for app.js', 'add a test file please']) },
        { do: 'approve' },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  deny: {
    vary: (rng) => ({
      script: [
        { think: 700, text: 'To clean up I will remove the notes.', chunkMs: 40, tool: { command: pick(rng, ['rm notes.txt', 'rm -f notes.txt README.md']), description: 'Delete files' } },
        // Used only by CLIs that tell the model about the refusal and continue the turn.
        { think: 500, text: 'Understood, I will leave the files alone.', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['clean up the notes file', 'delete the notes']) },
        { do: 'deny' },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  'long-think': {
    vary: (rng) => ({
      script: [{
        think: 7000 + Math.floor(rng() * 3000),
        text: 'After looking closely: add(a, b) has no input validation, no tests, and the README does not document the function. I suggest three small steps: validate inputs, add a test, document the API.',
        chunkChars: 3,
        chunkMs: 220 + Math.floor(rng() * 120),
      }],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['review app.js carefully and think hard', 'think deeply about what this code is missing']) },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  'multi-tool': {
    vary: (rng) => ({
      script: [
        { think: 600, text: 'First I will create a folder.', chunkMs: 35, tool: { command: 'mkdir -p src/lib', description: 'Create a folder' } },
        { think: 900, text: 'Now I will move the module.', chunkMs: 35, tool: { command: 'cp app.js src/lib/add.js', description: 'Copy the module' } },
        { think: 700, tool: { command: pick(rng, ['touch src/lib/index.js', 'touch src/index.js']), description: 'Create an index file' } },
        { think: 800, text: 'Done: the module now lives in src/lib with an index file.', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: 'move app.js into src/lib and add an index' },
        { do: 'approve' },
        { do: 'approve' },
        { do: 'approve' },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  trap: {
    vary: (rng) => ({
      script: [{ think: 800 + Math.floor(rng() * 500), text: TRAP_TEXT, chunkChars: 8, chunkMs: 35 }],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['show me examples of agent status lines', 'quote some terminal prompts for my docs']) },
        { do: 'turn_end' },
        { do: 'idle', ms: 4000 },
      ],
    }),
  },
  resize: {
    vary: (rng) => ({
      script: [{
        think: 1000,
        text: 'Resizing while streaming is a classic source of redraw glitches. This answer streams slowly on purpose so the terminal can change size in the middle of it, and then it keeps going for a few more seconds before it ends.',
        chunkChars: 4,
        chunkMs: 120 + Math.floor(rng() * 60),
      }],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: 'write a slow paragraph about resizing' },
        { do: 'resize', swap: true, afterFirstByteMs: 1500 + Math.floor(rng() * 1000) },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
};

/** Each CLI's multiple-choice question tool, where it is not Claude Code's AskUserQuestion. */
const QUESTION_TOOLS = { gemini: 'ask_user', opencode: 'question' };

/**
 * Codex 0.171 offers `request_user_input` and proposes plans only in Plan mode, a collaboration
 * mode the user switches to at the prompt: "/plan", Enter (the footer then reads "Plan mode
 * (shift+tab to cycle)"). No request goes to the model, so it is idle throughout.
 */
const CODEX_PLAN_MODE = { do: 'keys', keys: ['/plan', '\r'], why: 'plan mode' };

/** The question scenario's question, in the shape of the CLI's own tool. */
function questionCall(agent) {
  const question = 'Which test runner should the project use?';
  const options = [{ label: 'node:test', description: 'Built into Node, no dependency' }, { label: 'vitest', description: 'Fast, with watch mode' }];
  // Codex: one to three questions, each with a snake_case id; it adds "None of the above" itself.
  if (agent === 'codex') return { name: 'request_user_input', input: { questions: [{ id: 'test_runner', header: 'Runner', question, options }] } };
  return { name: QUESTION_TOOLS[agent] ?? 'AskUserQuestion', input: { questions: [{ question, header: 'Runner', ...(agent === 'gemini' ? { type: 'choice' } : {}), ...(agent === 'opencode' ? { multiple: false } : { multiSelect: false }), options }] } };
}

const LONG_TEXT = Array.from({ length: 150 }, (_, i) => `${String(i + 1).padStart(3, ' ')}. step ${i + 1} of the checklist: read, change, test, commit.`).join('\n');

// Working-day scenarios (issue 16). The Claude-only ones call Claude Code's own tools.
Object.assign(SCENARIOS, {
  // A new user's very first start: nothing seeded but the API key and base URL in the
  // environment, so every dialog the CLI shows a new user appears (agents.mjs `firstRun`).
  'first-run': {
    firstRun: true,
    agents: ['claude', 'codex', 'gemini'],
    seed: { bare: true },
    vary: (rng, agent) => {
      const script = [{ think: 600 + Math.floor(rng() * 600), text: pick(rng, ['Hi! Ready when you are.', 'Hello. What shall we build?']), chunkMs: 40 }];
      const prompt = pick(rng, ['hello', 'hi there']);
      // Codex signed in with a key talks to OpenAI itself, not to the mock (seed.mjs): the
      // dialogs, then its ready prompt.
      if (agent === 'codex') return { script: [], actions: [{ do: 'startup', steps: 'firstRun' }, { do: 'idle', ms: 4000 }] };
      return { script, actions: [{ do: 'startup', steps: 'firstRun' }, { do: 'idle', ms: 1500 }, { do: 'prompt', text: prompt }, { do: 'turn_end' }, { do: 'idle', ms: 2500 }] };
    },
  },
  // Each CLI's own file-edit tool, whose approval shows the diff. Claude: Read (runs unasked),
  // then Edit. Codex 0.171 offers the mock model no apply_patch tool, so the patch goes through
  // its shell tool as `apply_patch <<'EOF' …` (Codex intercepts it and asks "Would you like to
  // make the following edits?" with the diff: the workspace is seeded read-only, as a user who
  // reviews every edit runs it). Gemini: its `replace` tool ("Apply this change?"). OpenCode: its
  // `edit` tool (the seeded `permission.edit: "ask"` puts its diff in the permission panel).
  edit: {
    agents: ['claude', 'codex', 'gemini', 'opencode'],
    seed: { codexSandbox: 'read-only' },
    vary: (rng, agent) => {
      const newLine = pick(rng, ["  if (typeof a !== 'number' || typeof b !== 'number') throw new TypeError('add: numbers only');", "  if (!Number.isFinite(a) || !Number.isFinite(b)) throw new RangeError('add: finite numbers only');"]);
      // Drawn in the order the Claude-only version drew them, so its recordings stay reproducible.
      const done = { think: 600 + Math.floor(rng() * 600), text: 'Done: add() now rejects non-numbers.', chunkMs: 40 };
      const prompt = pick(rng, ['validate the inputs of add in app.js', 'make add() reject non-numbers']);
      const say = 'I will add input validation.';
      if (agent === 'codex') {
        const patch = ['apply_patch <<\'EOF\'', '*** Begin Patch', '*** Update File: app.js', '@@', ' export function add(a, b) {', `+${newLine}`, '   return a + b;', '*** End Patch', 'EOF'].join('\n');
        return {
          script: [{ think: 700, text: say, chunkMs: 35, tool: { command: patch, description: 'Edit app.js', escalate: false } }, done],
          actions: [{ do: 'idle', ms: 1000 }, { do: 'prompt', text: prompt }, { do: 'approve' }, { do: 'turn_end' }, { do: 'idle', ms: 3000 }],
        };
      }
      if (agent === 'opencode') {
        return {
          script: [{ think: 700, text: say, chunkMs: 35, tool: { name: 'edit', input: { filePath: 'app.js', oldString: '  return a + b;', newString: `${newLine}\n  return a + b;` } } }, done],
          actions: [{ do: 'idle', ms: 1000 }, { do: 'prompt', text: prompt }, { do: 'approve' }, { do: 'turn_end' }, { do: 'idle', ms: 3000 }],
        };
      }
      if (agent === 'gemini') {
        return {
          script: [{ think: 700, text: say, chunkMs: 35, tool: { name: 'replace', input: { file_path: 'app.js', instruction: 'In add(), reject arguments that are not numbers before adding them.', old_string: 'export function add(a, b) {\n  return a + b;\n}', new_string: `export function add(a, b) {\n${newLine}\n  return a + b;\n}` } } }, done],
          actions: [{ do: 'idle', ms: 1000 }, { do: 'prompt', text: prompt }, { do: 'approve' }, { do: 'turn_end' }, { do: 'idle', ms: 3000 }],
        };
      }
      return {
        script: [
          { think: 600, text: 'Let me read app.js first.', chunkMs: 35, tool: { name: 'Read', input: { file_path: '{cwd}/app.js' } } },
          { think: 700, text: say, chunkMs: 35, tool: { name: 'Edit', input: { file_path: '{cwd}/app.js', old_string: '  return a + b;', new_string: `${newLine}\n  return a + b;` } } },
          done,
        ],
        actions: [
          { do: 'idle', ms: 1000 },
          { do: 'prompt', text: prompt },
          { do: 'auto_tool' },
          { do: 'approve' },
          { do: 'turn_end' },
          { do: 'idle', ms: 3000 },
        ],
      };
    },
  },
  // Claude Code's AskUserQuestion; Gemini CLI's ask_user (same shape, plus a question `type`);
  // OpenCode's question tool (`multiple` instead of `multiSelect`); Codex's request_user_input,
  // in Plan mode ("Question 1/1 … enter to submit answer").
  question: {
    agents: ['claude', 'codex', 'gemini', 'opencode'],
    vary: (rng, agent) => ({
      script: [
        { think: 700, text: 'One question before I start.', chunkMs: 35, tool: questionCall(agent) },
        { think: 600 + Math.floor(rng() * 600), text: 'Good choice. I will set it up with node:test next time you ask.', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        ...(agent === 'codex' ? [CODEX_PLAN_MODE, { do: 'idle', ms: 800 }] : []),
        { do: 'prompt', text: pick(rng, ['set up tests, ask me which runner', 'add a test runner (ask me first)']) },
        { do: 'approve', keys: ['\r'] },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  // Claude: Write the plan file, then ExitPlanMode ("Would you like to proceed?"). Codex: in Plan
  // mode the answer carries the plan in a <proposed_plan> block; when the turn ends Codex asks
  // "Implement this plan? › 1. Yes, implement this plan … enter select · esc back", and Enter
  // submits "Implement the plan." in Default mode, a new turn. Gemini: enter_plan_mode asks
  // ("Action Required … Enter Plan Mode … Allow once": Enter), write_file saves the plan under
  // a bare name in its plans folder (its plan policy allows that unasked), exit_plan_mode asks
  // "Ready to start implementation?" (Down, Enter: "Yes, manually accept edits", the default
  // approval mode again), then the model goes on in the same turn. OpenCode 1.18.33: plan mode is
  // its `plan` agent (Tab at the prompt; the footer names the agent), which may not edit; its
  // plan_exit tool ("switch to the build agent?") is offered only under
  // OPENCODE_EXPERIMENTAL_PLAN_MODE (scenario `plan-exit`), so a user of the default sees no
  // approval dialog: the plan arrives as an answer, the user switches back to `build` (Tab) and
  // asks for it to be carried out.
  plan: {
    agents: ['claude', 'codex', 'gemini', 'opencode'],
    seed: { defaultMode: 'plan' },
    vary: (rng, agent) => {
      const plan = pick(rng, ['# Harden app.js\n\n1. Validate the inputs of add().\n2. Add a test file.\n3. Document add() in the README.\n', '# Improve the project\n\n1. Add tests for add().\n2. Reject non-numbers.\n3. Write a usage section.\n']);
      // Drawn in the order the Claude-only version drew them, so its recordings stay reproducible.
      const approved = { think: 600 + Math.floor(rng() * 600), text: 'Plan approved. I will start with the validation.', chunkMs: 40 };
      const prompt = pick(rng, ['plan how to harden app.js', 'make a plan to improve this project']);
      if (agent === 'gemini') {
        return {
          script: [
            { think: 700, text: 'I will plan this first.', chunkMs: 35, tool: { name: 'enter_plan_mode', input: { reason: 'Plan the change before editing' } } },
            { think: 600, text: 'Writing the plan down.', chunkMs: 35, tool: { name: 'write_file', input: { file_path: 'plan.md', content: plan } } },
            { think: 600, text: 'Here is my plan.', chunkMs: 35, tool: { name: 'exit_plan_mode', input: { plan_filename: 'plan.md' } } },
            approved,
          ],
          actions: [
            { do: 'idle', ms: 1000 },
            { do: 'prompt', text: prompt },
            { do: 'approve' },
            { do: 'auto_tool' },
            { do: 'approve', keys: ['\x1b[B', '\r'] },
            { do: 'turn_end' },
            { do: 'idle', ms: 3000 },
          ],
        };
      }
      if (agent === 'opencode') {
        const switchAgent = (to) => ({ do: 'keys', keys: ['\t'], why: `${to} agent` });
        return {
          script: [{ think: 700, text: `Here is my plan.\n\n${plan}`, chunkMs: 35 }, approved],
          actions: [
            { do: 'idle', ms: 1000 },
            switchAgent('plan'),
            { do: 'idle', ms: 800 },
            { do: 'prompt', text: prompt },
            { do: 'turn_end' },
            { do: 'idle', ms: 1500 },
            switchAgent('build'),
            { do: 'idle', ms: 800 },
            { do: 'prompt', text: 'go ahead with the plan' },
            { do: 'turn_end' },
            { do: 'idle', ms: 3000 },
          ],
        };
      }
      if (agent === 'codex') {
        return {
          script: [{ think: 700, text: `Here is my plan.\n\n<proposed_plan>\n${plan}</proposed_plan>\n`, chunkMs: 35 }, approved],
          actions: [
            { do: 'idle', ms: 1000 },
            CODEX_PLAN_MODE,
            { do: 'idle', ms: 800 },
            { do: 'prompt', text: prompt },
            { do: 'approve', on: 'stream_end', keys: ['\r'] },
            { do: 'turn_end' },
            { do: 'idle', ms: 3000 },
          ],
        };
      }
      return {
        script: [
          // Plan mode lets the model write only its plan file, without asking; then it asks to exit.
          { think: 700, text: 'Writing the plan down.', chunkMs: 35, tool: { name: 'Write', input: { file_path: '{planFile}', content: plan } } },
          { think: 600, text: 'Here is my plan.', chunkMs: 35, tool: { name: 'ExitPlanMode', input: {} } },
          approved,
        ],
        actions: [
          { do: 'idle', ms: 1000 },
          { do: 'prompt', text: prompt },
          { do: 'auto_tool' },
          { do: 'approve' },
          { do: 'turn_end' },
          { do: 'idle', ms: 3000 },
        ],
      };
    },
  },
  // OpenCode's experimental plan mode (OPENCODE_EXPERIMENTAL_PLAN_MODE): the plan agent gets its
  // plan_exit tool, which asks "Plan at … is complete. Would you like to switch to the build agent
  // and start implementing?" (Yes / No) in the question panel; Yes switches to build and the turn
  // goes on. The plan file is not written: the seeded `permission.edit: "ask"` would ask first.
  'plan-exit': {
    agents: ['opencode'],
    seed: { openCodePlanMode: true },
    vary: (rng) => ({
      script: [
        { think: 700, text: 'Here is my plan: validate the inputs of add(), add a test file, document add() in the README.', chunkMs: 35, tool: { name: 'plan_exit', input: {} } },
        { think: 600 + Math.floor(rng() * 600), text: 'Switched to build. I will start with the validation.', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'keys', keys: ['\t'], why: 'plan agent' },
        { do: 'idle', ms: 800 },
        { do: 'prompt', text: pick(rng, ['plan how to harden app.js', 'make a plan to improve this project']) },
        { do: 'approve', keys: ['\r'] },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  interrupt: {
    vary: (rng) => ({
      script: [{ think: 800, text: 'Let me walk through every line of this project in detail, slowly, one thought at a time, so that nothing is missed. '.repeat(6), chunkChars: 4, chunkMs: 150 }],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['explain this project in great detail', 'walk me through every file']) },
        { do: 'interrupt', afterFirstByteMs: 2000 + Math.floor(rng() * 1500) },
        { do: 'idle', ms: 4000 },
      ],
    }),
  },
  'error-fatal': {
    vary: (rng) => ({
      // Sticky: Claude Code 2.1.332 re-sent the request 24 ms after a 400 invalid_request_error
      // ("text content blocks must be non-empty") and got an answer; a key without permission
      // fails the same way every time.
      script: [{ think: 500 + Math.floor(rng() * 500), error: { status: 403, type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' }, sticky: true }],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['summarize the whole repository history', 'read everything and summarize']) },
        { do: 'turn_end' },
        { do: 'idle', ms: 4000 },
      ],
    }),
  },
  'error-retry': {
    vary: (rng) => ({
      script: [
        ...Array.from({ length: 2 }, () => ({ think: 300, error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, retryable: true })),
        { think: 600 + Math.floor(rng() * 400), text: 'Sorry for the wait: the project has one function, add(a, b).', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['what does app.js do?', 'describe app.js']) },
        { do: 'turn_end', capMs: 90_000 },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  'silent-tool': {
    // Allowed before in Claude, Gemini and OpenCode (seed.mjs); Codex runs it in its sandbox
    // without asking when no escalation is requested.
    seed: { allowShell: ['sleep 8'] },
    vary: (rng) => ({
      script: [
        { think: 600, text: 'Waiting for the build to settle.', chunkMs: 35, tool: { command: 'sleep 8', description: 'Wait eight seconds', escalate: false } },
        { think: 500 + Math.floor(rng() * 500), text: 'The wait is over; nothing else to do.', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['run sleep 8 and tell me when done', 'wait 8 seconds with sleep']) },
        { do: 'auto_tool' },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  'long-output': {
    // OpenCode keeps drawing the 150 lines for seconds after the stream's end, pausing longer
    // than the quiet window: its turn end is taken from its own events (agent-events.mjs).
    agentTurnEnd: true,
    vary: (rng) => ({
      script: [{ think: 600 + Math.floor(rng() * 400), text: LONG_TEXT, chunkChars: 40 + Math.floor(rng() * 20), chunkMs: 25 }],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['write a 150-step checklist', 'list 150 steps, one per line']) },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  queued: {
    vary: (rng) => ({
      script: [
        { think: 700, text: 'The first answer streams slowly so a second prompt can be queued behind it. It covers app.js and its one function.', chunkChars: 4, chunkMs: 120 },
        { think: 600, text: 'And the second one: notes.txt holds a single todo.', chunkMs: 40 },
      ],
      actions: [
        { do: 'idle', ms: 1000 },
        { do: 'prompt', text: pick(rng, ['what is in app.js?', 'describe app.js']) },
        { do: 'prompt', text: pick(rng, ['and notes.txt?', 'then notes.txt']), whileStreaming: true, afterFirstByteMs: 600 },
        { do: 'turn_end' },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
  // Claude: its Agent tool, the subagent's turn inline. Codex: multi_agent_v1's spawn_agent, then
  // wait_agent on the id spawn_agent returned; the sub-agent runs its own turn on its own thread
  // (mock steps `thread: 'sub'`) while the parent waits, then the parent answers. Gemini: its
  // invoke_agent tool (allowed unasked in the default mode) runs codebase_investigator, whose own
  // requests come in turn, like Claude's, and end with complete_task and its report. OpenCode: its
  // task tool (allowed unasked by default) runs the `general` subagent in a child session, whose
  // requests come in turn too.
  subagent: {
    agents: ['claude', 'codex', 'gemini', 'opencode'],
    vary: (rng, agent) => {
      const survey = 'List the files of this project and what each one holds.';
      const childAnswer = { think: 1500, text: 'README.md describes the project, app.js exports add(a, b), notes.txt holds a todo.', chunkMs: 40 };
      const final = { think: 600 + Math.floor(rng() * 600), text: 'The subagent reports three files: a README, app.js with add(a, b), and a notes file.', chunkMs: 40 };
      const prompt = pick(rng, ['use a subagent to survey the project', 'delegate a project survey to an agent']);
      // The subagent's tool runs unasked: one prompt, one tool, the turn's end (Codex: two tools).
      const actions = [{ do: 'idle', ms: 1000 }, { do: 'prompt', text: prompt }, { do: 'auto_tool' }, { do: 'turn_end' }, { do: 'idle', ms: 3000 }];
      if (agent === 'gemini') {
        const report = { SummaryOfFindings: childAnswer.text, ExplorationTrace: ['Listed the project folder.'], RelevantLocations: [{ FilePath: 'app.js', Reasoning: 'Exports add(a, b).', KeySymbols: ['add'] }] };
        return {
          script: [
            { think: 600, text: 'I will hand the survey to a subagent.', chunkMs: 35, tool: { name: 'invoke_agent', input: { agent_name: 'codebase_investigator', prompt: survey } } },
            { think: 4000, text: 'Survey done.', chunkMs: 35, tool: { name: 'complete_task', input: { report } } },
            final,
          ],
          actions,
        };
      }
      if (agent === 'opencode') {
        return {
          script: [
            { think: 600, text: 'I will hand the survey to a subagent.', chunkMs: 35, tool: { name: 'task', input: { description: 'Survey the project', prompt: survey, subagent_type: 'general' } } },
            // The subagent's request, answered after a few seconds as a slower model would.
            { ...childAnswer, think: 4000 },
            final,
          ],
          actions,
        };
      }
      if (agent === 'codex') {
        const multiAgent = (name, input) => ({ namespace: 'multi_agent_v1', name, input });
        return {
          script: [
            { think: 600, text: 'I will hand the survey to a sub-agent.', chunkMs: 35, tool: multiAgent('spawn_agent', { message: survey }) },
            { think: 500, text: 'Waiting for its report.', chunkMs: 35, tool: multiAgent('wait_agent', { targets: ['{agentId}'], timeout_ms: 60_000 }) },
            // Longer than Claude's: Codex's parent shows no status row while it waits ("• Waiting
            // for <id>" above the composer), only its title spinner.
            { thread: 'sub', ...childAnswer, think: 4000 },
            final,
          ],
          actions: [
            { do: 'idle', ms: 1000 },
            { do: 'prompt', text: prompt },
            { do: 'auto_tool' },
            { do: 'auto_tool' },
            { do: 'turn_end' },
            { do: 'idle', ms: 3000 },
          ],
        };
      }
      return {
        script: [
          { think: 600, text: 'I will hand the survey to a subagent.', chunkMs: 35, tool: { name: 'Agent', input: { description: 'Survey the project', prompt: survey, subagent_type: 'general-purpose', run_in_background: false } } },
          // The subagent's own turn (its requests carry tools too, so they are main requests).
          childAnswer,
          final,
        ],
        actions,
      };
    },
  },
  menus: {
    vary: (rng) => ({
      script: [],
      actions: [
        { do: 'idle', ms: 1500 },
        // Esc closes Claude Code's slash menu but leaves the "/" typed: Backspace clears it
        // (without it the next "/model" became "//model" and was sent as a prompt).
        { do: 'keys', keys: ['/', '\x1b', '\x7f'] },
        { do: 'idle', ms: 1000 + Math.floor(rng() * 800) },
        { do: 'keys', keys: ['{menuCommand}', '\r', '\x1b'] },
        { do: 'idle', ms: 3000 },
      ],
    }),
  },
});

Object.assign(SCENARIOS, FAILURE_SCENARIOS);

export const SCENARIO_NAMES = Object.keys(SCENARIOS);
export const DEFAULT_SIZES = [[80, 24], [120, 40]];
