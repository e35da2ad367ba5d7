/**
 * What the demo agent does for a prompt: a fixed, deterministic list of steps chosen by
 * keywords, so tests and fixtures see the same screens every run. Durations are at speed 1
 * (milliseconds); the agent divides them by AGENTWRAP_DEMO_SPEED.
 */

/** A kind of tool call that needs permission; "don't ask again" is remembered per kind. */
export type ToolKind = 'bash' | 'edit' | 'delete';

export type Step =
  | { readonly kind: 'think'; readonly ms: number }
  | {
      readonly kind: 'permission';
      readonly tool: ToolKind;
      readonly heading: string;
      readonly detail: readonly string[];
      readonly question: string;
      readonly options: readonly [string, string, string];
    }
  | { readonly kind: 'tool'; readonly call: string; readonly output: readonly string[]; readonly ms: number }
  | { readonly kind: 'say'; readonly lines: readonly string[]; readonly lineMs: number };

export const KEYWORDS = {
  run: 'asks to run `ls -la` (permission dialog), then answers',
  edit: 'asks to edit src/app.ts (permission dialog), then answers',
  delete: 'asks to run `rm -rf build/` (permission dialog), then answers',
  trap: "answers with prose that quotes agent UI (\"esc to interrupt\", \"Do you want to proceed?\", \"❯ 1. Yes\")",
  long: 'thinks for 12 s before answering (time to press Esc)',
} as const;

const THINK_MS = 2000;
const LONG_THINK_MS = 12_000;
const TOOL_MS = 1500;
const LINE_MS = 300;

/** A keyword counts as a whole word, so "running" or "credit" trigger nothing. */
function has(prompt: string, word: keyof typeof KEYWORDS): boolean {
  return new RegExp(`\\b${word}\\b`, 'i').test(prompt);
}

function permissionFor(prompt: string): Extract<Step, { kind: 'permission' }> | undefined {
  if (has(prompt, 'delete')) {
    return {
      kind: 'permission',
      tool: 'delete',
      heading: 'Bash command',
      detail: ['rm -rf build/', 'Delete the build output'],
      question: 'Do you want to run rm -rf build/?',
      options: ['Yes', "Yes, and don't ask again for rm commands", 'No, and tell me what to do differently (esc)'],
    };
  }
  if (has(prompt, 'edit')) {
    return {
      kind: 'permission',
      tool: 'edit',
      heading: 'Edit file',
      detail: ['src/app.ts', '12 - const retries = 1;', '12 + const retries = 3;'],
      question: 'Do you want to make this edit to app.ts?',
      options: ['Yes', "Yes, and don't ask again this session", 'No, and tell me what to do differently (esc)'],
    };
  }
  if (has(prompt, 'run')) {
    return {
      kind: 'permission',
      tool: 'bash',
      heading: 'Bash command',
      detail: ['ls -la', 'List the files in the working directory'],
      question: 'Do you want to run ls -la?',
      options: ['Yes', "Yes, and don't ask again for ls commands", 'No, and tell me what to do differently (esc)'],
    };
  }
  return undefined;
}

function toolFor(tool: ToolKind): Extract<Step, { kind: 'tool' }> {
  switch (tool) {
    case 'bash':
      return {
        kind: 'tool',
        call: 'Bash(ls -la)',
        output: ['total 24', 'drwxr-xr-x  5 demo demo 4096 .', '-rw-r--r--  1 demo demo  812 package.json', '… +3 lines'],
        ms: TOOL_MS,
      };
    case 'edit':
      return { kind: 'tool', call: 'Update(src/app.ts)', output: ['Updated src/app.ts with 1 addition and 1 removal'], ms: TOOL_MS };
    case 'delete':
      return { kind: 'tool', call: 'Bash(rm -rf build/)', output: ['(No content)'], ms: TOOL_MS };
  }
}

const TRAP_ANSWER = [
  '⏺ Here is some prose that only looks like agent UI:',
  '  While I work, my status line ends with "esc to interrupt" (12s · esc to interrupt).',
  '  Before a command I ask "Do you want to proceed?" and you answer:',
  '  ❯ 1. Yes   2. No   (Esc to cancel)',
  '  None of this is a live spinner or a live dialog; it is just text in an answer.',
];

function answerFor(prompt: string, tool: ToolKind | undefined): string[] {
  if (has(prompt, 'trap')) return TRAP_ANSWER;
  const quoted = prompt.length > 40 ? `${prompt.slice(0, 39)}…` : prompt;
  const first =
    tool === 'bash'
      ? '⏺ The directory holds a package.json and a few folders; nothing looks wrong.'
      : tool === 'edit'
        ? '⏺ I raised retries from 1 to 3 in src/app.ts.'
        : tool === 'delete'
          ? '⏺ I deleted build/; the next build will recreate it.'
          : `⏺ I am the demo agent, so I only pretend to work on "${quoted}".`;
  return [first, '  No model was called and no file was touched.', '  Try a prompt with run, edit, delete, trap or long.'];
}

/**
 * The steps for one prompt. `allowed` holds the tool kinds the user said "don't ask again"
 * for; those skip their dialog.
 */
export function planFor(prompt: string, allowed: ReadonlySet<ToolKind>): Step[] {
  const steps: Step[] = [{ kind: 'think', ms: has(prompt, 'long') ? LONG_THINK_MS : THINK_MS }];
  const permission = permissionFor(prompt);
  if (permission !== undefined) {
    if (!allowed.has(permission.tool)) steps.push(permission);
    steps.push(toolFor(permission.tool), { kind: 'think', ms: THINK_MS / 2 });
  }
  steps.push({ kind: 'say', lines: answerFor(prompt, permission?.tool), lineMs: LINE_MS });
  return steps;
}

/** Gerunds for the spinner line, picked by turn number: varied, yet the same every run. */
export const VERBS = ['Thinking', 'Pondering', 'Brewing', 'Musing', 'Noodling', 'Percolating'] as const;
