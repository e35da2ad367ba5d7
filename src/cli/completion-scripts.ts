/**
 * Shell completion scripts for bash, zsh and fish, generated from the command table
 * (command-table.ts). Each script carries the table as data and one small walker that finds
 * which command the cursor is in; live values (sessions, agents on PATH with a pack) come from
 * `agentwrap __complete sessions|agents` when the user presses Tab, so they are never stale.
 *
 * Words after the agent name (or after `run … --` and its command) belong to the agent: the
 * scripts fall back to the shell's file completion there, as they would without agentwrap.
 */
import { COMMAND_TABLE, TOP_OPTIONS, type ArgKind, type CommandSpec, type OptionSpec } from './command-table.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** One position in the command tree: '' for `agentwrap` itself, else e.g. 'status explain'. */
interface PathSpec {
  readonly path: string;
  readonly subcommands: readonly CommandSpec[];
  readonly options: readonly OptionSpec[];
  readonly args: ArgKind | undefined;
}

function flatten(): PathSpec[] {
  const out: PathSpec[] = [{ path: '', subcommands: COMMAND_TABLE, options: TOP_OPTIONS, args: 'agent' }];
  const walk = (prefix: string, command: CommandSpec): void => {
    const path = prefix === '' ? command.name : `${prefix} ${command.name}`;
    out.push({ path, subcommands: command.subcommands ?? [], options: [...command.options, { name: '--help' }], args: command.args });
    for (const sub of command.subcommands ?? []) walk(path, sub);
  };
  for (const command of COMMAND_TABLE) walk('', command);
  return out;
}

/** The kind as one shell word: `session`, `file`, … or `choices:a,b,c`. */
function kindWord(kind: ArgKind | undefined): string {
  if (kind === undefined) return 'none';
  return typeof kind === 'string' ? kind : `choices:${kind.choices.join(',')}`;
}

/** `--record=file --pack=agent`: the options that take a value, with what it completes to. */
function valueOptions(spec: PathSpec): string {
  return spec.options.flatMap((o) => (o.value === undefined ? [] : [`${o.name}=${kindWord(o.value)}`])).join(' ');
}

/** A `case` arm per path, setting the walker's four variables (bash and zsh share it). */
function posixSpecCase(): string {
  return flatten()
    .map((spec) => {
      const subs = spec.subcommands.map((c) => c.name).join(' ');
      const opts = spec.options.map((o) => o.name).join(' ');
      return `    '${spec.path}') subs='${subs}'; opts='${opts}'; vopts='${valueOptions(spec)}'; args='${kindWord(spec.args)}' ;;`;
    })
    .join('\n');
}

/**
 * The walker, in the shell language bash and zsh share: reads words 1..cword-1, following
 * subcommands and skipping option values; sets `path`, and `rest=1` once the words belong to
 * the wrapped agent. `launch_target=1` when the next word is the agent or command to run.
 */
function posixWalker(): string {
  return `_agentwrap_spec() {
  case "$1" in
${posixSpecCase()}
    *) subs=''; opts=''; vopts=''; args='none' ;;
  esac
}

# What option $1 takes in the current path (vopts): its kind; fails for a flag.
_agentwrap_value_kind() {
  [ -n "\${ZSH_VERSION:-}" ] && setopt localoptions shwordsplit
  local pair
  for pair in $vopts; do
    if [ "\${pair%%=*}" = "$1" ]; then printf '%s' "\${pair#*=}"; return 0; fi
  done
  return 1
}

# Words of the kind $1 that start with $2, one per line.
_agentwrap_values() {
  case "$1" in
    session) agentwrap __complete sessions 2>/dev/null ;;
    agent) agentwrap __complete agents 2>/dev/null ;;
    choices:*) printf '%s\\n' \${1#choices:} | tr ',' '\\n' ;;
  esac
}

# Sets cpath (the command path, e.g. 'status explain'), rest, launch_target, expect_value from the words before the cursor ($@).
_agentwrap_walk() {
  [ -n "\${ZSH_VERSION:-}" ] && setopt localoptions shwordsplit
  cpath=''; rest=0; launch_target=0; expect_value=''
  local w kind
  for w in "$@"; do
    if [ -n "$expect_value" ]; then expect_value=''; continue; fi
    if [ "$launch_target" = 1 ]; then rest=1; return; fi
    _agentwrap_spec "$cpath"
    case "$w" in
      --) if [ -z "$cpath" ] || [ "$cpath" = run ]; then launch_target=1; fi ;;
      --*=*) ;;
      -*) if kind=$(_agentwrap_value_kind "$w"); then expect_value="$kind"; fi ;;
      *)
        case " $subs " in
          *" $w "*) cpath="\${cpath:+$cpath }$w" ;;
          *) if [ -z "$cpath" ] || [ "$cpath" = run ]; then rest=1; return; fi ;;
        esac ;;
    esac
  done
  _agentwrap_spec "$cpath"
}`;
}

function bashScript(): string {
  return `# agentwrap completion for bash. Load it with:  source <(agentwrap completion bash)
# (or save it as ~/.local/share/bash-completion/completions/agentwrap).
${posixWalker()}

_agentwrap() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  local cpath rest launch_target expect_value subs opts vopts args
  _agentwrap_walk "\${COMP_WORDS[@]:1:COMP_CWORD-1}"
  COMPREPLY=()
  if [ "$rest" = 1 ]; then compopt -o default 2>/dev/null; return 0; fi
  local kind=$expect_value
  if [ -z "$kind" ]; then
    if [ "$launch_target" = 1 ]; then kind=command
    elif [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return 0
    else kind=$args
    fi
  fi
  case "$kind" in
    file) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
    dir) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null ;;
    command) COMPREPLY=($(compgen -c -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$subs $(_agentwrap_values "$kind")" -- "$cur")) ;;
  esac
  return 0
}
complete -F _agentwrap agentwrap
`;
}

function zshScript(): string {
  return `#compdef agentwrap
# agentwrap completion for zsh. Load it with:  source <(agentwrap completion zsh)
# (or save it as _agentwrap in a directory on $fpath, before compinit).
${posixWalker()}

_agentwrap() {
  local cur=\${words[CURRENT]}
  local cpath rest launch_target expect_value subs opts vopts args
  _agentwrap_walk "\${(@)words[2,CURRENT-1]}"
  if [ "$rest" = 1 ]; then _files; return; fi
  local kind=$expect_value
  if [ -z "$kind" ]; then
    if [ "$launch_target" = 1 ]; then kind=command
    elif [[ $cur == -* ]]; then compadd -- \${=opts}; return
    else kind=$args
    fi
  fi
  case "$kind" in
    file) _files ;;
    dir) _files -/ ;;
    command) _command_names -e ;;
    *)
      local -a values
      values=(\${=subs} \${(f)"$(_agentwrap_values "$kind")"})
      compadd -- \${values:#} ;;
  esac
}
if (( $+functions[compdef] )); then compdef _agentwrap agentwrap; fi
`;
}

function fishString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** fish: a path helper like the POSIX walker, then one `complete` line per path and option. */
function fishScript(): string {
  const lines: string[] = [
    '# agentwrap completion for fish. Load it with:  agentwrap completion fish | source',
    '# (or save it as ~/.config/fish/completions/agentwrap.fish).',
    '',
    '# Prints the command path the cursor is in (e.g. "status explain"), or "-rest" once the',
    '# words belong to the wrapped agent, or "-target" when the next word is what to run.',
    'function __agentwrap_path',
    '    set -l words (commandline -opc)[2..-1]',
    '    set -l path ""',
    '    set -l skip 0',
    '    set -l target 0',
    '    for w in $words',
    '        if test $skip = 1; set skip 0; continue; end',
    '        if test $target = 1; echo -- -rest; return; end',
    '        switch $w',
    '            case --',
    '                if test -z "$path" -o "$path" = run; set target 1; end',
    '            case "--*=*"',
    '            case "-*"',
    '                contains -- "$path|$w" $__agentwrap_value_options; and set skip 1',
    '            case "*"',
    '                if contains -- "$path|$w" $__agentwrap_subcommands',
    '                    set path (string trim -- "$path $w")',
    '                else if test -z "$path" -o "$path" = run',
    '                    echo -- -rest; return',
    '                end',
    '        end',
    '    end',
    '    if test $target = 1; echo -- -target; return; end',
    '    echo -- $path',
    'end',
    '',
    'function __agentwrap_at',
    '    test (__agentwrap_path) = "$argv[1]"',
    'end',
    '',
    'complete -c agentwrap -e',
    'complete -c agentwrap -f',
    "complete -c agentwrap -n '__agentwrap_at -target' -a '(__fish_complete_command)'",
    "complete -c agentwrap -n '__agentwrap_at -rest' -F",
  ];
  const subcommandPairs: string[] = [];
  const valuePairs: string[] = [];
  for (const spec of flatten()) {
    const at = `-n ${fishString(`__agentwrap_at '${spec.path}'`)}`;
    for (const sub of spec.subcommands) {
      subcommandPairs.push(`${spec.path}|${sub.name}`);
      lines.push(`complete -c agentwrap ${at} -a ${fishString(sub.name)} -d ${fishString(sub.summary)}`);
    }
    for (const option of spec.options) {
      const long = option.name.replace(/^--/, '');
      if (option.value !== undefined) valuePairs.push(`${spec.path}|${option.name}`);
      lines.push(`complete -c agentwrap ${at} -l ${long}${fishValue(option.value)}`);
    }
    if (spec.args !== undefined) lines.push(`complete -c agentwrap ${at}${fishValue(spec.args)}`);
  }
  lines.splice(
    3,
    0,
    `set -g __agentwrap_subcommands ${subcommandPairs.map(fishString).join(' ')}`,
    `set -g __agentwrap_value_options ${valuePairs.map(fishString).join(' ')}`,
    '',
  );
  return `${lines.join('\n')}\n`;
}

function fishValue(kind: ArgKind | undefined): string {
  if (kind === undefined) return '';
  if (typeof kind !== 'string') return ` -x -a ${fishString(kind.choices.join(' '))}`;
  switch (kind) {
    case 'word':
      return ' -x';
    case 'file':
    case 'dir':
      return ' -r -F';
    case 'session':
      return " -x -a '(agentwrap __complete sessions 2>/dev/null)'";
    case 'agent':
      return " -x -a '(agentwrap __complete agents 2>/dev/null)'";
    case 'command':
      return " -x -a '(__fish_complete_command)'";
    default: {
      const never: never = kind;
      return never;
    }
  }
}

export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return bashScript();
    case 'zsh':
      return zshScript();
    case 'fish':
      return fishScript();
    default: {
      const never: never = shell;
      return never;
    }
  }
}
