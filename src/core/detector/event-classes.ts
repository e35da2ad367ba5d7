/**
 * What each agent's events mean, before trust is applied (gating.ts applies it): one table per
 * agent whose hooks or event stream agentwrap listens to, and the agent-neutral events any
 * reporter may send. Pure.
 */
/** What an event means, before trust is applied. */
export type EventClass =
  /** The agent is about to wait on the operator (permission dialog, question, elicitation). */
  | 'blocked'
  /** The agent is working (turn started, tool running, busy status). */
  | 'working'
  /** The turn progressed past a dialog (prompt submitted, permission answered). */
  | 'progress'
  /** The turn (or the session) ended. */
  | 'idle'
  /** The source drops whatever it claims. */
  | 'release'
  /** Identity or liveness only (session start, subagent stop, idle reminder). */
  | 'identity';

export type Payload = Readonly<Record<string, unknown>>;

export function isObject(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringAt(payload: Payload | undefined, ...path: string[]): string | undefined {
  let value: unknown = payload;
  for (const key of path) {
    if (!isObject(value)) return undefined;
    value = value[key];
  }
  return typeof value === 'string' ? value : undefined;
}

/** Claude Code hook events (hook_event_name), by what they mean. */
const CLAUDE_EVENTS: Readonly<Record<string, EventClass>> = {
  PermissionRequest: 'blocked',
  Elicitation: 'blocked',
  UserPromptSubmit: 'progress',
  PreToolUse: 'progress',
  PostToolUse: 'progress',
  PostToolUseFailure: 'progress',
  PermissionDenied: 'progress',
  ElicitationResult: 'progress',
  PreCompact: 'progress',
  Stop: 'idle',
  StopFailure: 'idle',
  SessionEnd: 'idle',
  // A subagent finishing says nothing about the main turn (it can arrive after Stop).
  SubagentStart: 'identity',
  SubagentStop: 'identity',
  TaskCompleted: 'identity',
  TeammateIdle: 'identity',
  SessionStart: 'identity',
  Setup: 'identity',
};

/** Claude's Notification hook: only these notification types mean the operator is asked now. */
const CLAUDE_BLOCKING_NOTIFICATIONS: readonly string[] = ['permission_prompt', 'elicitation_dialog'];

/**
 * Codex `notify` payload types. Codex's hooks (SessionStart, UserPromptSubmit, PermissionRequest,
 * PreToolUse, PostToolUse, Stop) and Qwen Code's carry Claude Code's names and meanings, so
 * CLAUDE_EVENTS reads them too.
 */
const CODEX_NOTIFY_TYPES: Readonly<Record<string, EventClass>> = {
  'agent-turn-complete': 'idle',
  'approval-requested': 'blocked',
};

/** Gemini CLI hook events (hook_event_name), by what they mean. */
const GEMINI_EVENTS: Readonly<Record<string, EventClass>> = {
  BeforeAgent: 'progress',
  BeforeModel: 'progress',
  AfterModel: 'progress',
  BeforeToolSelection: 'progress',
  BeforeTool: 'progress',
  AfterTool: 'progress',
  PreCompress: 'progress',
  AfterAgent: 'idle',
  SessionEnd: 'idle',
  SessionStart: 'identity',
};

/** Gemini CLI's Notification hook: the one notification type that means the operator is asked now. */
const GEMINI_BLOCKING_NOTIFICATIONS: readonly string[] = ['ToolPermission'];

/** OpenCode bus events a plugin forwards. */
const OPENCODE_EVENTS: Readonly<Record<string, EventClass>> = {
  'permission.asked': 'blocked',
  'question.asked': 'blocked',
  'permission.replied': 'progress',
  'question.replied': 'progress',
  'question.rejected': 'progress',
  'tool.execute.before': 'working',
  'tool.execute.after': 'working',
  'session.idle': 'idle',
  'session.error': 'idle',
  'session.created': 'identity',
};

/** Agent-neutral events any reporter may send (custom agents, scripts, `agentwrap report blocked`). */
const GENERIC_EVENTS: Readonly<Record<string, EventClass>> = {
  blocked: 'blocked',
  working: 'working',
  progress: 'progress',
  idle: 'idle',
  stop: 'idle',
  release: 'release',
  identity: 'identity',
  heartbeat: 'identity',
  'session-start': 'identity',
};

/**
 * What `event` (with its payload) means for `agent`; undefined when the table does not know it
 * (then the report only refreshes the source's freshness, and explain says so).
 */
export function classifyEvent(agent: string, event: string, payload: Payload | undefined): EventClass | undefined {
  if (agent === 'claude' || agent === 'codex' || agent === 'qwen') {
    if (event === 'Notification') {
      const type = stringAt(payload, 'notification_type');
      return type !== undefined && CLAUDE_BLOCKING_NOTIFICATIONS.includes(type) ? 'blocked' : 'identity';
    }
    if (agent === 'codex' && event === 'notify') {
      const type = stringAt(payload, 'type');
      return type === undefined ? 'identity' : (CODEX_NOTIFY_TYPES[type] ?? 'identity');
    }
    const native = CLAUDE_EVENTS[event] ?? (agent === 'codex' ? CODEX_NOTIFY_TYPES[event] : undefined);
    if (native !== undefined) return native;
  }
  if (agent === 'gemini') {
    if (event === 'Notification') {
      const type = stringAt(payload, 'notification_type');
      return type !== undefined && GEMINI_BLOCKING_NOTIFICATIONS.includes(type) ? 'blocked' : 'identity';
    }
    const native = GEMINI_EVENTS[event];
    if (native !== undefined) return native;
  }
  if (agent === 'opencode') {
    if (event === 'session.status') {
      const type = stringAt(payload, 'properties', 'status', 'type') ?? stringAt(payload, 'status', 'type') ?? stringAt(payload, 'status');
      if (type === 'idle') return 'idle';
      if (type === 'busy' || type === 'retry') return 'working';
      return 'identity';
    }
    const native = OPENCODE_EVENTS[event];
    if (native !== undefined) return native;
  }
  return GENERIC_EVENTS[event];
}

