// A scripted mock model server on 127.0.0.1 that speaks the four streaming dialects the agent
// CLIs use, and records timestamped events that become ground-truth labels.
//
//   POST /v1/messages                        Anthropic Messages SSE         (Claude Code)
//   POST /v1/responses                       OpenAI Responses SSE           (Codex)
//   POST /v1/chat/completions                OpenAI chat completions SSE    (OpenCode)
//   POST /v1beta/models/M:streamGenerateContent?alt=sse   Gemini SSE       (Gemini CLI)
//   POST /v1beta/models/M:generateContent    Gemini JSON (routing / next-speaker calls)
//
// "Main" requests (the agent loop: they carry tools) consume the scenario's steps in order; side
// requests (titles, routing, quota probes) get a canned answer and never consume a step. When the
// script runs out, a main request gets a short unscripted text answer and an `unscripted` event.
//
// A step:  { think?: ms, text?: string, chunkMs?: ms, chunkChars?: n,
//            tool?: { command: string, description?: string } }
// A step with `tool` ends with a tool call (stop reason tool_use / function_call); the CLI then
// runs or asks to run it and sends the result in its next main request. `tool.name` and
// `tool.input` (Anthropic and Gemini) call another of the CLI's tools (Edit, AskUserQuestion,
// ExitPlanMode, Task…; Gemini's replace) with that input; "{cwd}" in an input string becomes the working folder the
// request's system prompt names (Claude's Edit/Write want absolute paths), "{planFile}" the plan
// file plan mode tells the model to write ("… create your plan at /…/plans/x.md").
// A Codex step may carry `tool.namespace` (a namespaced tool: multi_agent_v1's spawn_agent) and
// "{agentId}" in its input (the id the last spawn_agent result in the request named). A step marked
// `thread: 'sub'` answers only a sub-agent's requests (Codex: a request whose thread-id header is
// not the first main request's): a spawned agent runs its own turn beside its parent's, and one
// queue would hand the parent the child's answer. Their events carry `thread: 'sub'`.
// A step { think?, error: { status, type, message }, retryable?, sticky? } answers the request with that
// HTTP error instead of a stream (`error_sent` and a `stream_end` carrying `error` and
// `retryable`, so the driver knows a retried error does not end the turn). A `sticky` step is
// never used up: every later main request gets it too.
// A step { think?, failure: 'usage-limit' | 'rate-limited' | 'overloaded' | 'auth' | 'network' |
// 'api-error', failureOptions?, retryable?, sticky? } answers with that failure in the request's own
// dialect (failures.mjs); `network` answers nothing and resets the connection.
import { createServer } from 'node:http';
import { EventEmitter } from 'node:events';
import { failureAnswer } from './failures.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Wall-clock milliseconds with sub-ms resolution, shared with the driver (same process). */
export const nowMs = () => performance.timeOrigin + performance.now();

function chunksOf(text, n) {
  const out = [];
  // Split on code points so a chunk never cuts a surrogate pair.
  const cps = Array.from(text);
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(''));
  return out;
}

const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => c.text ?? '').join('') : '');

/**
 * Whether a chat request that carries tools is a CLI's own background task rather than its turn,
 * and which: Qwen Code 0.24.4 runs its managed auto-memory extractor, a forked agent with the
 * turn's history and tools, after the turn is over (its Stop hook has fired, its screen is idle).
 */
export function backgroundChatTask(messages = []) {
  const system = textOf(messages.find((m) => m.role === 'system')?.content);
  if (system.includes('managed memory extraction subagent')) return 'memory-extraction';
  return undefined;
}

// ---------------------------------------------------------------- SSE encoders (pure)

/** Anthropic Messages events for one step, as [eventName, dataObject] pairs. */
export function anthropicEvents(step, { model = 'claude-mock', msgId = 'msg_mock', toolId = 'toolu_mock', chunkChars = 6 } = {}) {
  const ev = [];
  ev.push(['message_start', { type: 'message_start', message: { id: msgId, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } }]);
  let index = 0;
  const textDeltas = [];
  if (step.text) {
    ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
    for (const c of chunksOf(step.text, chunkChars)) {
      const e = ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: c } }];
      textDeltas.push(e);
      ev.push(e);
    }
    ev.push(['content_block_stop', { type: 'content_block_stop', index }]);
    index++;
  }
  if (step.tool) {
    const input = step.tool.input ?? { command: step.tool.command, description: step.tool.description ?? 'Run a command' };
    ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolId, name: step.tool.name ?? 'Bash', input: {} } }]);
    ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } }]);
    ev.push(['content_block_stop', { type: 'content_block_stop', index }]);
  }
  ev.push(['message_delta', { type: 'message_delta', delta: { stop_reason: step.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 40 } }]);
  ev.push(['message_stop', { type: 'message_stop' }]);
  return { events: ev, textDeltas: new Set(textDeltas) };
}

/** OpenAI Responses events for one step. `shellTool` describes the CLI's shell tool. */
export function responsesEvents(step, { respId = 'resp_mock', callId = 'call_mock', chunkChars = 6, shellTool } = {}) {
  const ev = [];
  const textDeltas = [];
  ev.push(['response.created', { type: 'response.created', response: { id: respId, object: 'response', status: 'in_progress', output: [] } }]);
  let oi = 0;
  if (step.text) {
    const itemId = `msg_${respId}`;
    ev.push(['response.output_item.added', { type: 'response.output_item.added', output_index: oi, item: { type: 'message', id: itemId, role: 'assistant', status: 'in_progress', content: [] } }]);
    ev.push(['response.content_part.added', { type: 'response.content_part.added', item_id: itemId, output_index: oi, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }]);
    for (const c of chunksOf(step.text, chunkChars)) {
      const e = ['response.output_text.delta', { type: 'response.output_text.delta', item_id: itemId, output_index: oi, content_index: 0, delta: c }];
      textDeltas.push(e);
      ev.push(e);
    }
    ev.push(['response.output_text.done', { type: 'response.output_text.done', item_id: itemId, output_index: oi, content_index: 0, text: step.text }]);
    ev.push(['response.output_item.done', { type: 'response.output_item.done', output_index: oi, item: { type: 'message', id: itemId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.text, annotations: [] }] } }]);
    oi++;
  }
  if (step.tool) {
    // `tool.name` + `tool.input` call another of Codex's own tools (request_user_input; a
    // namespaced one such as multi_agent_v1's spawn_agent also carries `tool.namespace`).
    const { name, args } = step.tool.input ? { name: step.tool.name, args: step.tool.input } : codexShellCall(step.tool, shellTool);
    const item = { type: 'function_call', id: `fc_${callId}`, call_id: callId, ...(step.tool.namespace ? { namespace: step.tool.namespace } : {}), name, arguments: JSON.stringify(args), status: 'completed' };
    ev.push(['response.output_item.added', { type: 'response.output_item.added', output_index: oi, item: { ...item, arguments: '' } }]);
    ev.push(['response.output_item.done', { type: 'response.output_item.done', output_index: oi, item }]);
  }
  ev.push(['response.completed', { type: 'response.completed', response: { id: respId, object: 'response', status: 'completed', output: [], usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 50 } } }]);
  return { events: ev, textDeltas: new Set(textDeltas) };
}

/**
 * Picks the arguments for Codex's shell tool from the tool's declared JSON schema, asking for
 * escalated permissions when the schema offers it (that is what makes Codex show its approval
 * dialog under approval_policy "on-request").
 */
export function codexShellCall(tool, shellTool) {
  const name = shellTool?.name ?? 'shell';
  const props = shellTool?.parameters?.properties ?? {};
  const args = {};
  if ('cmd' in props) args.cmd = tool.command;
  else if (props.command?.type === 'array') args.command = ['bash', '-lc', tool.command];
  else args.command = tool.command;
  if ('workdir' in props && tool.workdir) args.workdir = tool.workdir;
  if (tool.escalate !== false) {
    if ('sandbox_permissions' in props) args.sandbox_permissions = 'require_escalated';
    if ('with_escalated_permissions' in props) args.with_escalated_permissions = true;
    if ('justification' in props) args.justification = tool.description ?? 'Needs to write outside the sandbox';
  }
  return { name, args };
}

/** OpenAI chat-completions chunks for one step (data objects; the stream ends with [DONE]). */
// Factory's droid refuses an `Execute` call without the risk the model must classify ("Missing
// risk classification") and runs it unasked; in its default autonomy every level asks.
const SHELL_EXTRAS = { Execute: { riskLevel: 'medium', riskLevelReason: 'It creates or deletes files in the project.' } };

export function chatEvents(step, { id = 'chatcmpl_mock', model = 'mock-model', callId = 'call_mock', chunkChars = 6, toolName = 'bash' } = {}) {
  const base = { id, object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const ev = [];
  const textDeltas = [];
  ev.push([null, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }]);
  if (step.text) {
    for (const c of chunksOf(step.text, chunkChars)) {
      const e = [null, { ...base, choices: [{ index: 0, delta: { content: c }, finish_reason: null }] }];
      textDeltas.push(e);
      ev.push(e);
    }
  }
  if (step.tool) {
    // `tool.name` + `tool.input` call another of the CLI's tools (OpenCode's edit, question).
    const name = step.tool.input ? step.tool.name : toolName;
    const args = JSON.stringify(step.tool.input ?? { command: step.tool.command, description: step.tool.description ?? 'Run a command', ...SHELL_EXTRAS[name] });
    ev.push([null, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: callId, type: 'function', function: { name, arguments: args } }] }, finish_reason: null }] }]);
  }
  ev.push([null, { ...base, choices: [{ index: 0, delta: {}, finish_reason: step.tool ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 20, completion_tokens: 30, total_tokens: 50 } }]);
  ev.push([null, '[DONE]']);
  return { events: ev, textDeltas: new Set(textDeltas) };
}

/** Gemini streamGenerateContent SSE chunks for one step (no keep-alive comments: Gemini's parser fails on them). */
export function geminiEvents(step, { chunkChars = 6, toolName = 'run_shell_command' } = {}) {
  const ev = [];
  const textDeltas = [];
  const usageMetadata = { promptTokenCount: 20, candidatesTokenCount: 30, totalTokenCount: 50 };
  if (step.text) {
    for (const c of chunksOf(step.text, chunkChars)) {
      const e = [null, { candidates: [{ content: { parts: [{ text: c }], role: 'model' }, index: 0 }], usageMetadata }];
      textDeltas.push(e);
      ev.push(e);
    }
  }
  if (step.tool) {
    const call = step.tool.input ? { name: step.tool.name, args: step.tool.input } : { name: toolName, args: { command: step.tool.command, description: step.tool.description ?? 'Run a command' } };
    ev.push([null, { candidates: [{ content: { parts: [{ functionCall: call }], role: 'model' }, index: 0 }], usageMetadata }]);
  }
  ev.push([null, { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata }]);
  return { events: ev, textDeltas: new Set(textDeltas) };
}

/** Builds a value matching a (Gemini / JSON) schema: first enum value, 'user' for next_speaker. */
export function valueForSchema(schema, key = '') {
  if (!schema || typeof schema !== 'object') return null;
  const type = String(schema.type ?? (schema.properties ? 'object' : 'string')).toLowerCase();
  if (key === 'next_speaker') return 'user';
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (type) {
    case 'object': {
      const o = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) o[k] = valueForSchema(v, k);
      return o;
    }
    case 'array': return [];
    case 'integer': case 'number': return 0;
    case 'boolean': return false;
    default: return key === 'reasoning' ? 'Simple request; the default model suffices.' : 'ok';
  }
}

export function encodeSse(name, data) {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return (name ? `event: ${name}\n` : '') + `data: ${payload}\n\n`;
}

/** The error body each API's clients parse, for a scripted `error` step. */
export function errorBody(api, { status, type, message }) {
  if (api === 'anthropic') return { type: 'error', error: { type, message } };
  if (api === 'gemini') return { error: { code: status, message, status: type.toUpperCase() } };
  return { error: { message, type, code: type } };
}

/** Replaces "{name}" in every string of a tool input with `vars[name]` ({cwd}, {planFile}). */
export function fillVars(input, vars) {
  if (typeof input === 'string') return input.replace(/\{(\w+)\}/g, (all, name) => vars[name] ?? all);
  if (Array.isArray(input)) return input.map((x) => fillVars(x, vars));
  if (input && typeof input === 'object') return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, fillVars(v, vars)]));
  return input;
}

// ---------------------------------------------------------------- server

function flatten(x) {
  if (x == null) return '';
  if (typeof x === 'string') return x;
  if (Array.isArray(x)) return x.map(flatten).join(' ');
  if (typeof x === 'object') return Object.values(x).map(flatten).join(' ');
  return String(x);
}

/**
 * Starts the mock. Returns { port, baseUrl, events, bus, setScript(steps), close() }.
 * `events` is the append-only event log: { t (wall ms), type, api, kind, step, ... }.
 * `bus` emits 'event' for each one, so the driver can wait on the model instead of the screen.
 */
export async function startMock({ log = () => {}, port = 0 } = {}) {
  const events = [];
  const bus = new EventEmitter();
  let script = [];
  // Indexes of the steps used up (a sticky step never is).
  let used = new Set();
  // The thread-id of the first main Responses request: Codex's root thread.
  let mainThread;
  let counter = 0;
  let loggedResponsesTools = false;
  let loggedChatTools = false;
  const emit = (e) => {
    const full = { t: nowMs(), ...e };
    events.push(full);
    bus.emit('event', full);
    log(`[mock] ${full.type} ${full.api ?? ''} ${full.kind ?? ''}${full.thread ? ` (${full.thread})` : ''} ${full.step ?? ''} ${full.detail ?? ''}`);
    return full;
  };

  async function streamSteps(res, api, step, stepNo, encoded, contentType = 'text/event-stream', thread = 'main') {
    const sub = thread === 'sub' ? { thread } : {};
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    if (step.think) await sleep(step.think);
    let first = true;
    for (const pair of encoded.events) {
      const [name, data] = pair;
      if (res.destroyed) { emit({ type: 'client_aborted', api, kind: 'main', step: stepNo, ...sub }); return; }
      res.write(encodeSse(name, data));
      if (first) { emit({ type: 'first_byte', api, kind: 'main', step: stepNo, ...sub }); first = false; }
      if (encoded.textDeltas.has(pair)) {
        await sleep(step.chunkMs ?? 30);
      }
    }
    res.end();
    if (step.tool) emit({ type: 'tool_call_sent', api, kind: 'main', step: stepNo, detail: step.tool.command ?? step.tool.name, ...sub });
    emit({ type: 'stream_end', api, kind: 'main', step: stepNo, tool: Boolean(step.tool), ...sub });
  }

  async function sendError(res, api, step, stepNo) {
    if (step.think) await sleep(step.think);
    if (step.failure) {
      const answer = failureAnswer(api, step.failure, { nowMs: Date.now(), ...step.failureOptions });
      if (answer.drop) res.socket?.destroy();
      else {
        res.writeHead(answer.status, answer.headers);
        res.end(JSON.stringify(answer.body));
      }
      emit({ type: 'error_sent', api, kind: 'main', step: stepNo, detail: `${step.failure} ${answer.drop ? 'connection reset' : answer.status}` });
      emit({ type: 'stream_end', api, kind: 'main', step: stepNo, tool: false, error: answer.drop ? 'network' : answer.status, retryable: Boolean(step.retryable) });
      return;
    }
    const body = JSON.stringify(errorBody(api, step.error));
    res.writeHead(step.error.status, { 'content-type': 'application/json', ...(step.retryable ? { 'retry-after': '1' } : {}) });
    res.end(body);
    emit({ type: 'error_sent', api, kind: 'main', step: stepNo, detail: `${step.error.status} ${step.error.type}` });
    emit({ type: 'stream_end', api, kind: 'main', step: stepNo, tool: false, error: step.error.status, retryable: Boolean(step.retryable) });
  }

  /** The first step not used up for `thread` ('main', or 'sub': a sub-agent's). */
  function nextStep(api, thread = 'main') {
    const stepNo = script.findIndex((s, i) => !used.has(i) && (s.thread ?? 'main') === thread);
    const step = script[stepNo];
    // A `sticky` step answers every later main request too (an error that does not go away).
    if (step) { if (!step.sticky) used.add(stepNo); return { step, stepNo }; }
    emit({ type: 'unscripted', api, kind: 'main', ...(thread === 'sub' ? { thread } : {}) });
    return { step: { text: 'Done.' }, stepNo: -1 };
  }

  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch (err) {
      // A non-JSON body is still logged below; the route decides what to do with it.
      body = { _unparsed: String(err) };
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    counter++;
    try {
      // ------------------------------------------------ Anthropic
      if (req.method === 'POST' && path === '/v1/messages') {
        const tools = body.tools ?? [];
        const isMain = tools.length > 0;
        emit({ type: 'request', api: 'anthropic', kind: isMain ? 'main' : 'side', detail: `model=${body.model} stream=${body.stream} max_tokens=${body.max_tokens}` });
        if (!isMain) return answerAnthropicSide(res, body);
        const { step, stepNo } = nextStep('anthropic');
        if (step.error || step.failure) return await sendError(res, 'anthropic', step, stepNo);
        const bash = tools.find((t) => t.name === 'Bash') ? 'Bash' : tools[0]?.name;
        const context = `${flatten(body.system)} ${flatten(body.messages)}`;
        const vars = {
          cwd: /working directory:\s*(\S+)/i.exec(flatten(body.system))?.[1] ?? '.',
          planFile: /(?:create your plan at|already exists at) (\/\S+?\.md)/.exec(context)?.[1] ?? 'plan.md',
        };
        const s = step.tool ? { ...step, tool: { name: bash, ...step.tool, ...(step.tool.input ? { input: fillVars(step.tool.input, vars) } : {}) } } : step;
        const enc = anthropicEvents(s, { model: body.model, msgId: `msg_${counter}`, toolId: `toolu_${counter}`, chunkChars: step.chunkChars });
        if (body.stream === false) return sendJson(res, anthropicMessage(s, body.model, counter));
        return await streamSteps(res, 'anthropic', s, stepNo, enc);
      }
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        emit({ type: 'request', api: 'anthropic', kind: 'side', detail: 'count_tokens' });
        return sendJson(res, { input_tokens: 100 });
      }
      // ------------------------------------------------ OpenAI Responses
      if (req.method === 'POST' && path.endsWith('/responses')) {
        const tools = body.tools ?? [];
        const isMain = tools.length > 0;
        const threadId = req.headers['thread-id'];
        if (isMain) mainThread ??= threadId;
        // Told apart only when the script has sub-agent steps: nothing else is known to change the thread.
        const thread = isMain && threadId !== mainThread && script.some((s) => s.thread === 'sub') ? 'sub' : 'main';
        emit({ type: 'request', api: 'responses', kind: isMain ? 'main' : 'side', ...(thread === 'sub' ? { thread } : {}), detail: `model=${body.model} tools=${tools.map((t) => t.name ?? t.type).join(',')}` });
        if (!isMain) {
          const enc = responsesEvents({ text: 'Capture lab session' }, { respId: `resp_${counter}` });
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const [n, d] of enc.events) res.write(encodeSse(n, d));
          return res.end();
        }
        // The declared tools of the first main request, whole, in run.log: what a scenario
        // scripting one of Codex's own tools (request_user_input, multi_agent_v1…) has to match.
        if (!loggedResponsesTools) { loggedResponsesTools = true; log(`[mock] responses tools ${JSON.stringify(tools)}`); }
        const { step: scripted, stepNo } = nextStep('responses', thread);
        if (scripted.error || scripted.failure) return await sendError(res, 'responses', scripted, stepNo);
        // The id spawn_agent returned (its result, a JSON string inside the JSON body), for wait_agent.
        const agentId = [...raw.matchAll(/\\"agent_id\\":\\"([\w-]+)\\"/g)].at(-1)?.[1];
        const step = scripted.tool?.input ? { ...scripted, tool: { ...scripted.tool, input: fillVars(scripted.tool.input, { agentId }) } } : scripted;
        const shellTool = ['shell_command', 'exec_command', 'shell', 'local_shell']
          .map((n) => tools.find((t) => t.name === n)).find(Boolean);
        const enc = responsesEvents(step, { respId: `resp_${counter}`, callId: `call_${counter}`, chunkChars: step.chunkChars, shellTool });
        return await streamSteps(res, 'responses', step, stepNo, enc, undefined, thread);
      }
      // ------------------------------------------------ OpenAI chat completions
      if (req.method === 'POST' && path.endsWith('/chat/completions')) {
        const tools = body.tools ?? [];
        const background = backgroundChatTask(body.messages);
        const isMain = tools.length > 0 && !background;
        emit({ type: 'request', api: 'chat', kind: isMain ? 'main' : 'side', detail: `model=${body.model} stream=${body.stream}${background ? ` ${background}` : ''}` });
        if (!isMain) {
          if (body.stream === false || body.stream === undefined) {
            return sendJson(res, { id: `c${counter}`, object: 'chat.completion', created: 1_700_000_000, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Capture lab session' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
          }
          const enc = chatEvents({ text: 'Capture lab session' }, { id: `c${counter}`, model: body.model });
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const [n, d] of enc.events) res.write(encodeSse(n, d));
          return res.end();
        }
        // The declared tools of the first main request, by name, in run.log (as for Responses).
        if (!loggedChatTools) { loggedChatTools = true; log(`[mock] chat tools ${tools.map((t) => t.function?.name).join(',')}`); }
        const { step, stepNo } = nextStep('chat');
        // What an unscripted request asked, in run.log: a CLI's background task looks like a turn.
        if (stepNo < 0) log(`[mock] unscripted chat: system ${JSON.stringify(textOf(body.messages?.find((m) => m.role === 'system')?.content).slice(0, 100))} last ${JSON.stringify(textOf(body.messages?.at(-1)?.content).slice(0, 100))}`);
        if (step.error || step.failure) return await sendError(res, 'chat', step, stepNo);
        // Continue CLI's and Letta Code's shell tool is `Bash`, Cline's `run_commands`, Factory's
        // droid `Execute` (with the risk it asks the model for: SHELL_EXTRAS).
        const toolName = ['bash', 'shell', 'run_shell_command', 'Bash', 'run_commands', 'Execute'].find((n) => tools.some((t) => t.function?.name === n)) ?? tools[0]?.function?.name;
        const enc = chatEvents(step, { id: `c${counter}`, model: body.model, callId: `call_${counter}`, chunkChars: step.chunkChars, toolName });
        return await streamSteps(res, 'chat', step, stepNo, enc);
      }
      // ------------------------------------------------ Gemini
      if (req.method === 'POST' && /:streamGenerateContent$/.test(path)) {
        const decls = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
        const isMain = decls.length > 0;
        emit({ type: 'request', api: 'gemini', kind: isMain ? 'main' : 'side', detail: path.split('/').pop() });
        const { step, stepNo } = isMain ? nextStep('gemini') : { step: { text: 'ok' }, stepNo: -1 };
        if (step.error || step.failure) return await sendError(res, 'gemini', step, stepNo);
        const toolName = decls.some((d) => d.name === 'run_shell_command') ? 'run_shell_command' : decls[0]?.name;
        const enc = geminiEvents(step, { chunkChars: step.chunkChars, toolName });
        if (!isMain) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const [n, d] of enc.events) res.write(encodeSse(n, d));
          return res.end();
        }
        return await streamSteps(res, 'gemini', step, stepNo, enc);
      }
      if (req.method === 'POST' && /:generateContent$/.test(path)) {
        const cfg = body.generationConfig ?? body.config ?? {};
        const schema = cfg.responseJsonSchema ?? cfg.responseSchema;
        const text = schema ? JSON.stringify(valueForSchema(schema)) : 'ok';
        emit({ type: 'request', api: 'gemini', kind: 'side', detail: `${path.split('/').pop()} -> ${text}` });
        return sendJson(res, { candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 } });
      }
      if (req.method === 'POST' && /:countTokens$/.test(path)) {
        emit({ type: 'request', api: 'gemini', kind: 'side', detail: 'countTokens' });
        return sendJson(res, { totalTokens: 100 });
      }
      // ------------------------------------------------ model lists (some CLIs probe them)
      if (req.method === 'GET' && /\/models\/?$/.test(path)) {
        emit({ type: 'request', api: 'models', kind: 'side', detail: path });
        return sendJson(res, { object: 'list', data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }], models: [] });
      }
      emit({ type: 'unknown_request', detail: `${req.method} ${req.url} body=${raw.slice(0, 300)}` });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'not_found', message: `mock: no route for ${req.method} ${path}` } }));
    } catch (err) {
      emit({ type: 'mock_error', detail: String(err?.stack ?? err) });
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });

  function answerAnthropicSide(res, body) {
    const sys = flatten(body.system) + ' ' + flatten(body.messages);
    // Topic/title detection asks for JSON; everything else gets a short plain answer.
    const text = /isNewTopic/.test(sys) ? '{"isNewTopic": false, "title": null}'
      : /json/i.test(sys) && /title/i.test(sys) ? '{"title": "Capture lab session"}'
      : 'Capture lab session';
    const s = { text };
    if (body.stream) {
      const enc = anthropicEvents(s, { model: body.model, msgId: `msg_${counter}`, chunkChars: 1000 });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const [n, d] of enc.events) res.write(encodeSse(n, d));
      return res.end();
    }
    return sendJson(res, anthropicMessage(s, body.model, counter));
  }

  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const addr = server.address();
  return {
    port: addr.port,
    baseUrl: `http://127.0.0.1:${addr.port}`,
    events,
    bus,
    setScript(steps) { script = steps; used = new Set(); },
    remaining() { return script.length - used.size; },
    close() { return new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }); },
  };
}

function anthropicMessage(step, model, n) {
  const content = [];
  if (step.text) content.push({ type: 'text', text: step.text });
  if (step.tool) content.push({ type: 'tool_use', id: `toolu_${n}`, name: step.tool.name ?? 'Bash', input: { command: step.tool.command, description: step.tool.description ?? '' } });
  return { id: `msg_${n}`, type: 'message', role: 'assistant', model, content, stop_reason: step.tool ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } };
}

function sendJson(res, obj) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}
