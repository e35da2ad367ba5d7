// The mock model's dialects (mock.mjs): each API's answer to one scripted step, encoded as its
// SSE events or JSON body, and the request text the mock reads. Pure: no server, no clock.

function chunksOf(text, n) {
  const out = [];
  // Split on code points so a chunk never cuts a surrogate pair.
  const cps = Array.from(text);
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(''));
  return out;
}

export const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => c.text ?? '').join('') : '');

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

/** All the text in a request's part (system prompt, messages), flattened for matching. */
export function flatten(x) {
  if (x == null) return '';
  if (typeof x === 'string') return x;
  if (Array.isArray(x)) return x.map(flatten).join(' ');
  if (typeof x === 'object') return Object.values(x).map(flatten).join(' ');
  return String(x);
}

/** A whole (non-streamed) Anthropic message for one step. */
export function anthropicMessage(step, model, n) {
  const content = [];
  if (step.text) content.push({ type: 'text', text: step.text });
  if (step.tool) content.push({ type: 'tool_use', id: `toolu_${n}`, name: step.tool.name ?? 'Bash', input: { command: step.tool.command, description: step.tool.description ?? '' } });
  return { id: `msg_${n}`, type: 'message', role: 'assistant', model, content, stop_reason: step.tool ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } };
}
