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
//
// Here: the server, its script and its events, with one route function per dialect; each
// answer's encoding is in mock-dialects.mjs.
import { createServer } from 'node:http';
import { EventEmitter } from 'node:events';
import { failureAnswer } from './failures.mjs';
import {
  anthropicEvents, responsesEvents, chatEvents, geminiEvents, valueForSchema, encodeSse, errorBody, fillVars,
  backgroundChatTask, textOf, flatten, anthropicMessage,
} from './mock-dialects.mjs';

// The encoders, where the lab's tests and scripts have always found them.
export { anthropicEvents, responsesEvents, chatEvents, geminiEvents, codexShellCall, valueForSchema, encodeSse, errorBody, fillVars, backgroundChatTask } from './mock-dialects.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Wall-clock milliseconds with sub-ms resolution, shared with the driver (same process). */
export const nowMs = () => performance.timeOrigin + performance.now();

/**
 * Starts the mock. Returns { port, baseUrl, events, bus, setScript(steps), close() }.
 * `events` is the append-only event log: { t (wall ms), type, api, kind, step, ... }.
 * `bus` emits 'event' for each one, so the driver can wait on the model instead of the screen.
 */
export async function startMock({ log = () => {}, port = 0 } = {}) {
  // The mock's state, shared by its routes.
  const m = {
    log,
    events: [],
    bus: new EventEmitter(),
    script: [],
    // Indexes of the steps used up (a sticky step never is).
    used: new Set(),
    // The thread-id of the first main Responses request: Codex's root thread.
    mainThread: undefined,
    counter: 0,
    loggedResponsesTools: false,
    loggedChatTools: false,
  };
  const server = createServer((req, res) => handleRequest(m, req, res));
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const addr = server.address();
  return {
    port: addr.port,
    baseUrl: `http://127.0.0.1:${addr.port}`,
    events: m.events,
    bus: m.bus,
    setScript(steps) { m.script = steps; m.used = new Set(); },
    remaining() { return m.script.length - m.used.size; },
    close() { return new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }); },
  };
}

function emit(m, e) {
  const full = { t: nowMs(), ...e };
  m.events.push(full);
  m.bus.emit('event', full);
  m.log(`[mock] ${full.type} ${full.api ?? ''} ${full.kind ?? ''}${full.thread ? ` (${full.thread})` : ''} ${full.step ?? ''} ${full.detail ?? ''}`);
  return full;
}

/** One request: its body read, then answered by the route for its dialect (404 for none). */
async function handleRequest(m, req, res) {
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
  m.counter++;
  try {
    const post = req.method === 'POST';
    if (post && path === '/v1/messages') return await anthropicRequest(m, res, body);
    if (post && path === '/v1/messages/count_tokens') {
      emit(m, { type: 'request', api: 'anthropic', kind: 'side', detail: 'count_tokens' });
      return sendJson(res, { input_tokens: 100 });
    }
    if (post && path.endsWith('/responses')) return await responsesRequest(m, req, res, body, raw);
    if (post && path.endsWith('/chat/completions')) return await chatRequest(m, res, body);
    if (post && /:streamGenerateContent$/.test(path)) return await geminiStreamRequest(m, res, body, path);
    if (post && /:generateContent$/.test(path)) {
      const cfg = body.generationConfig ?? body.config ?? {};
      const schema = cfg.responseJsonSchema ?? cfg.responseSchema;
      const text = schema ? JSON.stringify(valueForSchema(schema)) : 'ok';
      emit(m, { type: 'request', api: 'gemini', kind: 'side', detail: `${path.split('/').pop()} -> ${text}` });
      return sendJson(res, { candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 } });
    }
    if (post && /:countTokens$/.test(path)) {
      emit(m, { type: 'request', api: 'gemini', kind: 'side', detail: 'countTokens' });
      return sendJson(res, { totalTokens: 100 });
    }
    // Model lists (some CLIs probe them).
    if (req.method === 'GET' && /\/models\/?$/.test(path)) {
      emit(m, { type: 'request', api: 'models', kind: 'side', detail: path });
      return sendJson(res, { object: 'list', data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }], models: [] });
    }
    emit(m, { type: 'unknown_request', detail: `${req.method} ${req.url} body=${raw.slice(0, 300)}` });
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'not_found', message: `mock: no route for ${req.method} ${path}` } }));
  } catch (err) {
    emit(m, { type: 'mock_error', detail: String(err?.stack ?? err) });
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
}

/** The first step not used up for `thread` ('main', or 'sub': a sub-agent's). */
function nextStep(m, api, thread = 'main') {
  const stepNo = m.script.findIndex((s, i) => !m.used.has(i) && (s.thread ?? 'main') === thread);
  const step = m.script[stepNo];
  // A `sticky` step answers every later main request too (an error that does not go away).
  if (step) { if (!step.sticky) m.used.add(stepNo); return { step, stepNo }; }
  emit(m, { type: 'unscripted', api, kind: 'main', ...(thread === 'sub' ? { thread } : {}) });
  return { step: { text: 'Done.' }, stepNo: -1 };
}

async function streamSteps(m, res, api, step, stepNo, encoded, contentType = 'text/event-stream', thread = 'main') {
  const sub = thread === 'sub' ? { thread } : {};
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  if (step.think) await sleep(step.think);
  let first = true;
  for (const pair of encoded.events) {
    const [name, data] = pair;
    if (res.destroyed) { emit(m, { type: 'client_aborted', api, kind: 'main', step: stepNo, ...sub }); return; }
    res.write(encodeSse(name, data));
    if (first) { emit(m, { type: 'first_byte', api, kind: 'main', step: stepNo, ...sub }); first = false; }
    if (encoded.textDeltas.has(pair)) {
      await sleep(step.chunkMs ?? 30);
    }
  }
  res.end();
  if (step.tool) emit(m, { type: 'tool_call_sent', api, kind: 'main', step: stepNo, detail: step.tool.command ?? step.tool.name, ...sub });
  emit(m, { type: 'stream_end', api, kind: 'main', step: stepNo, tool: Boolean(step.tool), ...sub });
}

async function sendError(m, res, api, step, stepNo) {
  if (step.think) await sleep(step.think);
  if (step.failure) {
    const answer = failureAnswer(api, step.failure, { nowMs: Date.now(), ...step.failureOptions });
    if (answer.drop) res.socket?.destroy();
    else {
      res.writeHead(answer.status, answer.headers);
      res.end(JSON.stringify(answer.body));
    }
    emit(m, { type: 'error_sent', api, kind: 'main', step: stepNo, detail: `${step.failure} ${answer.drop ? 'connection reset' : answer.status}` });
    emit(m, { type: 'stream_end', api, kind: 'main', step: stepNo, tool: false, error: answer.drop ? 'network' : answer.status, retryable: Boolean(step.retryable) });
    return;
  }
  const body = JSON.stringify(errorBody(api, step.error));
  res.writeHead(step.error.status, { 'content-type': 'application/json', ...(step.retryable ? { 'retry-after': '1' } : {}) });
  res.end(body);
  emit(m, { type: 'error_sent', api, kind: 'main', step: stepNo, detail: `${step.error.status} ${step.error.type}` });
  emit(m, { type: 'stream_end', api, kind: 'main', step: stepNo, tool: false, error: step.error.status, retryable: Boolean(step.retryable) });
}

/** A side answer (title, topic, anything without tools) written whole as SSE. */
function sendSseWhole(res, enc) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const [n, d] of enc.events) res.write(encodeSse(n, d));
  return res.end();
}

// Anthropic Messages (Claude Code).
async function anthropicRequest(m, res, body) {
  const tools = body.tools ?? [];
  const isMain = tools.length > 0;
  emit(m, { type: 'request', api: 'anthropic', kind: isMain ? 'main' : 'side', detail: `model=${body.model} stream=${body.stream} max_tokens=${body.max_tokens}` });
  if (!isMain) return answerAnthropicSide(m, res, body);
  const { step, stepNo } = nextStep(m, 'anthropic');
  if (step.error || step.failure) return await sendError(m, res, 'anthropic', step, stepNo);
  const bash = tools.find((t) => t.name === 'Bash') ? 'Bash' : tools[0]?.name;
  const context = `${flatten(body.system)} ${flatten(body.messages)}`;
  const vars = {
    cwd: /working directory:\s*(\S+)/i.exec(flatten(body.system))?.[1] ?? '.',
    planFile: /(?:create your plan at|already exists at) (\/\S+?\.md)/.exec(context)?.[1] ?? 'plan.md',
  };
  const s = step.tool ? { ...step, tool: { name: bash, ...step.tool, ...(step.tool.input ? { input: fillVars(step.tool.input, vars) } : {}) } } : step;
  const enc = anthropicEvents(s, { model: body.model, msgId: `msg_${m.counter}`, toolId: `toolu_${m.counter}`, chunkChars: step.chunkChars });
  if (body.stream === false) return sendJson(res, anthropicMessage(s, body.model, m.counter));
  return await streamSteps(m, res, 'anthropic', s, stepNo, enc);
}

function answerAnthropicSide(m, res, body) {
  const sys = flatten(body.system) + ' ' + flatten(body.messages);
  // Topic/title detection asks for JSON; everything else gets a short plain answer.
  const text = /isNewTopic/.test(sys) ? '{"isNewTopic": false, "title": null}'
    : /json/i.test(sys) && /title/i.test(sys) ? '{"title": "Capture lab session"}'
    : 'Capture lab session';
  const s = { text };
  if (body.stream) return sendSseWhole(res, anthropicEvents(s, { model: body.model, msgId: `msg_${m.counter}`, chunkChars: 1000 }));
  return sendJson(res, anthropicMessage(s, body.model, m.counter));
}

// OpenAI Responses (Codex).
async function responsesRequest(m, req, res, body, raw) {
  const tools = body.tools ?? [];
  const isMain = tools.length > 0;
  const threadId = req.headers['thread-id'];
  if (isMain) m.mainThread ??= threadId;
  // Told apart only when the script has sub-agent steps: nothing else is known to change the thread.
  const thread = isMain && threadId !== m.mainThread && m.script.some((s) => s.thread === 'sub') ? 'sub' : 'main';
  emit(m, { type: 'request', api: 'responses', kind: isMain ? 'main' : 'side', ...(thread === 'sub' ? { thread } : {}), detail: `model=${body.model} tools=${tools.map((t) => t.name ?? t.type).join(',')}` });
  if (!isMain) return sendSseWhole(res, responsesEvents({ text: 'Capture lab session' }, { respId: `resp_${m.counter}` }));
  // The declared tools of the first main request, whole, in run.log: what a scenario
  // scripting one of Codex's own tools (request_user_input, multi_agent_v1…) has to match.
  if (!m.loggedResponsesTools) { m.loggedResponsesTools = true; m.log(`[mock] responses tools ${JSON.stringify(tools)}`); }
  const { step: scripted, stepNo } = nextStep(m, 'responses', thread);
  if (scripted.error || scripted.failure) return await sendError(m, res, 'responses', scripted, stepNo);
  // The id spawn_agent returned (its result, a JSON string inside the JSON body), for wait_agent.
  const agentId = [...raw.matchAll(/\\"agent_id\\":\\"([\w-]+)\\"/g)].at(-1)?.[1];
  const step = scripted.tool?.input ? { ...scripted, tool: { ...scripted.tool, input: fillVars(scripted.tool.input, { agentId }) } } : scripted;
  const shellTool = ['shell_command', 'exec_command', 'shell', 'local_shell']
    .map((n) => tools.find((t) => t.name === n)).find(Boolean);
  const enc = responsesEvents(step, { respId: `resp_${m.counter}`, callId: `call_${m.counter}`, chunkChars: step.chunkChars, shellTool });
  return await streamSteps(m, res, 'responses', step, stepNo, enc, undefined, thread);
}

// OpenAI chat completions (OpenCode and most of the others).
async function chatRequest(m, res, body) {
  const tools = body.tools ?? [];
  const background = backgroundChatTask(body.messages);
  const isMain = tools.length > 0 && !background;
  emit(m, { type: 'request', api: 'chat', kind: isMain ? 'main' : 'side', detail: `model=${body.model} stream=${body.stream}${background ? ` ${background}` : ''}` });
  if (!isMain) {
    if (body.stream === false || body.stream === undefined) {
      return sendJson(res, { id: `c${m.counter}`, object: 'chat.completion', created: 1_700_000_000, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Capture lab session' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
    }
    return sendSseWhole(res, chatEvents({ text: 'Capture lab session' }, { id: `c${m.counter}`, model: body.model }));
  }
  // The declared tools of the first main request, by name, in run.log (as for Responses).
  if (!m.loggedChatTools) { m.loggedChatTools = true; m.log(`[mock] chat tools ${tools.map((t) => t.function?.name).join(',')}`); }
  const { step, stepNo } = nextStep(m, 'chat');
  // What an unscripted request asked, in run.log: a CLI's background task looks like a turn.
  if (stepNo < 0) m.log(`[mock] unscripted chat: system ${JSON.stringify(textOf(body.messages?.find((x) => x.role === 'system')?.content).slice(0, 100))} last ${JSON.stringify(textOf(body.messages?.at(-1)?.content).slice(0, 100))}`);
  if (step.error || step.failure) return await sendError(m, res, 'chat', step, stepNo);
  // Continue CLI's and Letta Code's shell tool is `Bash`, Cline's `run_commands`, Factory's
  // droid `Execute` (with the risk it asks the model for: SHELL_EXTRAS).
  const toolName = ['bash', 'shell', 'run_shell_command', 'Bash', 'run_commands', 'Execute'].find((n) => tools.some((t) => t.function?.name === n)) ?? tools[0]?.function?.name;
  const enc = chatEvents(step, { id: `c${m.counter}`, model: body.model, callId: `call_${m.counter}`, chunkChars: step.chunkChars, toolName });
  return await streamSteps(m, res, 'chat', step, stepNo, enc);
}

// Gemini streamGenerateContent (Gemini CLI); its JSON side calls are answered in handleRequest.
async function geminiStreamRequest(m, res, body, path) {
  const decls = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const isMain = decls.length > 0;
  emit(m, { type: 'request', api: 'gemini', kind: isMain ? 'main' : 'side', detail: path.split('/').pop() });
  const { step, stepNo } = isMain ? nextStep(m, 'gemini') : { step: { text: 'ok' }, stepNo: -1 };
  if (step.error || step.failure) return await sendError(m, res, 'gemini', step, stepNo);
  const toolName = decls.some((d) => d.name === 'run_shell_command') ? 'run_shell_command' : decls[0]?.name;
  const enc = geminiEvents(step, { chunkChars: step.chunkChars, toolName });
  if (!isMain) return sendSseWhole(res, enc);
  return await streamSteps(m, res, 'gemini', step, stepNo, enc);
}

function sendJson(res, obj) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}
