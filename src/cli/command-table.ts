/**
 * Every command and option agentwrap accepts, as one table. Each command parses its arguments
 * with its entry's options (flags.ts: `parseCommand`), the shell completions are generated from
 * it (completion-scripts.ts), `help <command>` and the did-you-mean for a mistyped command read
 * it (dispatch.ts), and the tests walk it (test/cli/help.test.ts): a new option is one line
 * here, and completion offers it the day a command accepts it.
 */

/**
 * What a word completes to: nothing special (`word`), a file or directory, a live session
 * (asks `agentwrap __complete sessions`), an agent on PATH that has a pack (asks
 * `agentwrap __complete agents`), any command on PATH, or one of a fixed list.
 */
export type ArgKind = 'word' | 'file' | 'dir' | 'session' | 'agent' | 'command' | { readonly choices: readonly string[] };

/** One option as the parser reads it (node:util parseArgs' fields) and completion offers it. */
export interface TableOption {
  readonly type: 'string' | 'boolean';
  /** Repeatable: every value is kept, in order. */
  readonly multiple?: boolean;
  readonly short?: string;
  /** What a string option's value completes to (default `word`). */
  readonly complete?: ArgKind;
}

export interface TableCommand {
  readonly summary: string;
  readonly options: Readonly<Record<string, TableOption>>;
  /** What its positional arguments complete to. */
  readonly args?: ArgKind;
  readonly subcommands?: Readonly<Record<string, TableCommand>>;
}

const WORD = { type: 'string' } as const;
const FLAG = { type: 'boolean' } as const;
const NO_OPTIONS = {} as const;

/** The launch options: `agentwrap [options] <agent>` and `agentwrap run [options] -- <cmd>`. */
export const LAUNCH_TABLE_OPTIONS = {
  record: { type: 'string', complete: 'file' },
  'record-input': FLAG,
  'no-record': FLAG,
  pack: { type: 'string', complete: 'agent' },
  notify: FLAG,
  'no-notify': FLAG,
  'on-state': WORD,
  hooks: FLAG,
  'no-hooks': FLAG,
} as const satisfies Readonly<Record<string, TableOption>>;

export const COMMANDS = {
  run: { summary: 'run any command wrapped', options: LAUNCH_TABLE_OPTIONS, args: 'command' },
  status: {
    summary: 'live sessions, most urgent first',
    options: {
      json: FLAG,
      watch: { type: 'boolean', short: 'w' },
      format: { type: 'string', multiple: true, complete: { choices: ['text', 'json', 'tmux'] } },
      host: { type: 'string', multiple: true },
      'state-dir': { type: 'string', multiple: true, complete: 'dir' },
    },
    subcommands: {
      explain: {
        summary: 'why a session is in its state',
        args: 'session',
        options: {
          json: FLAG,
          file: { type: 'string', complete: 'file' },
          agent: { type: 'string', complete: 'agent' },
          pack: { type: 'string', complete: 'file' },
          title: WORD,
          progress: WORD,
          ticks: WORD,
        },
      },
      capture: { summary: 'a live screen as a pack fixture', args: 'session', options: { out: { type: 'string', complete: 'dir' } } },
    },
  },
  ack: { summary: 'mark a session seen (done → idle)', args: 'session', options: NO_OPTIONS },
  answer: {
    summary: "choose an option of a session's dialog",
    args: 'session',
    options: { host: WORD, dialog: WORD, from: WORD },
  },
  send: { summary: 'type a prompt into a waiting session', args: 'session', options: { force: FLAG, host: WORD, from: WORD } },
  events: { summary: 'NDJSON stream of transitions', options: { host: { type: 'string', multiple: true } } },
  dashboard: { summary: 'local web dashboard on 127.0.0.1', options: { port: WORD } },
  report: {
    summary: 'for agent hooks: report an event',
    args: 'word',
    options: {
      session: { type: 'string', complete: 'session' },
      json: { type: 'string', complete: 'file' },
      agent: { type: 'string', complete: 'agent' },
      source: WORD,
      seq: WORD,
    },
  },
  'report-metadata': {
    summary: 'for agent hooks: display-only values',
    args: 'word',
    options: { 'ttl-ms': WORD, session: { type: 'string', complete: 'session' } },
  },
  replay: {
    summary: 'a recording through the live pipeline',
    args: 'file',
    options: {
      agent: { type: 'string', complete: 'agent' },
      'no-screen-rules': FLAG,
      timeline: FLAG,
      json: FLAG,
      'explain-at': WORD,
      'screen-at': WORD,
      'capture-at': WORD,
      out: { type: 'string', complete: 'dir' },
      ticks: { type: 'string', complete: 'file' },
    },
  },
  eval: {
    summary: 'recordings scored against labels',
    args: 'file',
    options: { json: FLAG, report: { type: 'string', complete: 'file' }, 'min-accuracy': WORD, agent: { type: 'string', complete: 'agent' }, 'no-screen-rules': FLAG },
  },
  packs: {
    summary: 'rule packs',
    options: NO_OPTIONS,
    subcommands: {
      list: { summary: 'packs loaded and their status', options: { json: FLAG } },
      lint: { summary: 'validate pack files', args: 'file', options: NO_OPTIONS },
      test: { summary: 'the fixture sweep', args: 'dir', options: NO_OPTIONS },
    },
  },
  demo: {
    summary: 'the bundled demo agent, wrapped',
    options: { auto: FLAG, speed: WORD, json: FLAG, record: { type: 'string', complete: 'file' } },
  },
  doctor: { summary: 'what agentwrap sees and what is wrong', options: { json: FLAG } },
  completion: { summary: 'shell completion script', args: { choices: ['bash', 'zsh', 'fish'] }, options: NO_OPTIONS },
  help: { summary: 'usage; help <command>: that command\'s', options: NO_OPTIONS },
} as const satisfies Readonly<Record<string, TableCommand>>;

export type CommandName = keyof typeof COMMANDS;

/** An option as the completion scripts read it. */
export interface OptionSpec {
  /** With its dashes: `--json`. */
  readonly name: string;
  /** What its value completes to; absent for a flag without a value. */
  readonly value?: ArgKind;
}

/** A command as the completion scripts and tests read it: a list rather than a record. */
export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly options: readonly OptionSpec[];
  readonly args?: ArgKind;
  readonly subcommands?: readonly CommandSpec[];
}

function optionSpecs(options: Readonly<Record<string, TableOption>>): OptionSpec[] {
  return Object.entries(options).map(([name, option]) => (option.type === 'string' ? { name: `--${name}`, value: option.complete ?? 'word' } : { name: `--${name}` }));
}

function commandSpecs(commands: Readonly<Record<string, TableCommand>>): CommandSpec[] {
  return Object.entries(commands).map(([name, command]) => ({
    name,
    summary: command.summary,
    options: optionSpecs(command.options),
    ...(command.args === undefined ? {} : { args: command.args }),
    ...(command.subcommands === undefined ? {} : { subcommands: commandSpecs(command.subcommands) }),
  }));
}

export const COMMAND_TABLE: readonly CommandSpec[] = commandSpecs(COMMANDS);

/** The launch options as completion offers them. */
export const LAUNCH_OPTIONS: readonly OptionSpec[] = optionSpecs(LAUNCH_TABLE_OPTIONS);

/** Options every invocation of `agentwrap` alone takes. */
export const TOP_OPTIONS: readonly OptionSpec[] = [{ name: '--help' }, { name: '--version' }, ...LAUNCH_OPTIONS];

/** `status explain` → its entry; undefined when no command has that name. */
export function findCommand(words: readonly string[]): TableCommand | undefined {
  let table: Readonly<Record<string, TableCommand>> | undefined = COMMANDS;
  let found: TableCommand | undefined;
  for (const word of words) {
    found = table !== undefined && Object.hasOwn(table, word) ? table[word] : undefined;
    if (found === undefined) return undefined;
    table = found.subcommands;
  }
  return found;
}

/** Every command's path, subcommands included: `status`, `status explain`, … */
export function commandPaths(commands: Readonly<Record<string, TableCommand>> = COMMANDS, prefix = ''): string[] {
  return Object.entries(commands).flatMap(([name, command]) => {
    const path = prefix === '' ? name : `${prefix} ${name}`;
    return [path, ...commandPaths(command.subcommands ?? {}, path)];
  });
}
