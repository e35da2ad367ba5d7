/**
 * Every command and option agentwrap accepts, as one table that the shell completions are
 * generated from (completion.ts). A new command or option is one line here; the test in
 * test/cli/completion.test.ts fails when `agentwrap --help` names one this table lacks.
 */

/**
 * What a word completes to: nothing special (`word`), a file or directory, a live session
 * (asks `agentwrap __complete sessions`), an agent on PATH that has a pack (asks
 * `agentwrap __complete agents`), any command on PATH, or one of a fixed list.
 */
export type ArgKind = 'word' | 'file' | 'dir' | 'session' | 'agent' | 'command' | { readonly choices: readonly string[] };

export interface OptionSpec {
  /** With its dashes: `--json`. */
  readonly name: string;
  /** What its value completes to; absent for a flag without a value. */
  readonly value?: ArgKind;
}

export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly options: readonly OptionSpec[];
  /** What its positional arguments complete to. */
  readonly args?: ArgKind;
  readonly subcommands?: readonly CommandSpec[];
}

/** The launch options: `agentwrap [options] <agent>` and `agentwrap run [options] -- <cmd>`. */
export const LAUNCH_OPTIONS: readonly OptionSpec[] = [
  { name: '--record', value: 'file' },
  { name: '--record-input' },
  { name: '--no-record' },
  { name: '--pack', value: 'agent' },
  { name: '--notify' },
  { name: '--no-notify' },
  { name: '--on-state', value: 'word' },
  { name: '--hooks' },
  { name: '--no-hooks' },
];

/** Options every invocation of `agentwrap` alone takes. */
export const TOP_OPTIONS: readonly OptionSpec[] = [{ name: '--help' }, { name: '--version' }, ...LAUNCH_OPTIONS];

export const COMMAND_TABLE: readonly CommandSpec[] = [
  { name: 'run', summary: 'run any command wrapped', options: LAUNCH_OPTIONS, args: 'command' },
  {
    name: 'status',
    summary: 'live sessions, most urgent first',
    options: [{ name: '--json' }, { name: '--watch' }, { name: '--format', value: { choices: ['text', 'json', 'tmux'] } }],
    subcommands: [
      {
        name: 'explain',
        summary: 'why a session is in its state',
        args: 'session',
        options: [
          { name: '--json' },
          { name: '--file', value: 'file' },
          { name: '--agent', value: 'agent' },
          { name: '--pack', value: 'file' },
          { name: '--title', value: 'word' },
          { name: '--progress', value: 'word' },
          { name: '--ticks', value: 'word' },
        ],
      },
      { name: 'capture', summary: 'a live screen as a pack fixture', args: 'session', options: [{ name: '--out', value: 'dir' }] },
    ],
  },
  { name: 'ack', summary: 'mark a session seen (done → idle)', args: 'session', options: [] },
  { name: 'events', summary: 'NDJSON stream of transitions', options: [] },
  { name: 'dashboard', summary: 'local web dashboard on 127.0.0.1', options: [{ name: '--port', value: 'word' }] },
  {
    name: 'report',
    summary: 'for agent hooks: report an event',
    args: 'word',
    options: [
      { name: '--session', value: 'session' },
      { name: '--json', value: 'file' },
      { name: '--agent', value: 'agent' },
      { name: '--source', value: 'word' },
      { name: '--seq', value: 'word' },
    ],
  },
  {
    name: 'report-metadata',
    summary: 'for agent hooks: display-only values',
    args: 'word',
    options: [
      { name: '--ttl-ms', value: 'word' },
      { name: '--session', value: 'session' },
    ],
  },
  {
    name: 'replay',
    summary: 'a recording through the live pipeline',
    args: 'file',
    options: [
      { name: '--agent', value: 'agent' },
      { name: '--timeline' },
      { name: '--json' },
      { name: '--explain-at', value: 'word' },
      { name: '--screen-at', value: 'word' },
      { name: '--capture-at', value: 'word' },
      { name: '--out', value: 'dir' },
      { name: '--ticks', value: 'file' },
    ],
  },
  {
    name: 'eval',
    summary: 'recordings scored against labels',
    args: 'file',
    options: [
      { name: '--json' },
      { name: '--report', value: 'file' },
      { name: '--min-accuracy', value: 'word' },
      { name: '--agent', value: 'agent' },
    ],
  },
  {
    name: 'packs',
    summary: 'rule packs',
    options: [],
    subcommands: [
      { name: 'list', summary: 'packs loaded and their status', options: [{ name: '--json' }] },
      { name: 'lint', summary: 'validate pack files', args: 'file', options: [] },
      { name: 'test', summary: 'the fixture sweep', args: 'dir', options: [] },
    ],
  },
  {
    name: 'demo',
    summary: 'the bundled demo agent, wrapped',
    options: [{ name: '--auto' }, { name: '--speed', value: 'word' }, { name: '--json' }, { name: '--record', value: 'file' }],
  },
  { name: 'doctor', summary: 'what agentwrap sees and what is wrong', options: [{ name: '--json' }] },
  { name: 'completion', summary: 'shell completion script', args: { choices: ['bash', 'zsh', 'fish'] }, options: [] },
  { name: 'help', summary: 'usage', options: [] },
];
