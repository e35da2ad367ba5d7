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
//   { do: 'turn_end' }             wait until the turn is over (final stream ended, or nothing
//                                  more requested after a deny), then let the CLI settle
//   { do: 'resize', cols, rows, afterFirstByteMs }  resize while the current turn streams
//   { do: 'idle', ms }             do nothing (idle)
//   { do: 'startup' }              answer the first-run dialogs (agents.mjs `startup`)

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

export const SCENARIO_NAMES = Object.keys(SCENARIOS);
export const DEFAULT_SIZES = [[80, 24], [120, 40]];
