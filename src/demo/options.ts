/** The demo agent's knobs (docs/demo.md): environment variables, and the --help text naming them. */
import { KEYWORDS } from './script.js';

export interface Options {
  /** Divides every phase duration: 10 makes a turn ten times faster. */
  readonly speed: number;
  readonly titles: boolean;
  readonly progress: boolean;
  readonly bell: boolean;
}

export function readOptions(env: NodeJS.ProcessEnv): Options {
  const speed = Number(env['AGENTWRAP_DEMO_SPEED'] ?? '1');
  return {
    speed: Number.isFinite(speed) && speed > 0 ? speed : 1,
    titles: env['AGENTWRAP_DEMO_TITLE'] !== '0',
    progress: env['AGENTWRAP_DEMO_PROGRESS'] !== '0',
    bell: env['AGENTWRAP_DEMO_BELL'] !== '0',
  };
}

export const USAGE = `usage: agent.js [--help|--version]

The agentwrap demo agent: a pretend coding agent TUI for trying agentwrap without an API key.
Prompt keywords: ${Object.keys(KEYWORDS).join(', ')}. Type /help inside for details.
Environment: AGENTWRAP_DEMO_SPEED (default 1; 10 = ten times faster), AGENTWRAP_DEMO_TITLE=0
(no OSC titles), AGENTWRAP_DEMO_PROGRESS=0 (no OSC 9;4), AGENTWRAP_DEMO_BELL=0 (no bell).
`;
