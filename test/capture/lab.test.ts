import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { anthropicEvents, responsesEvents, chatEvents, geminiEvents, codexShellCall, valueForSchema, encodeSse, startMock } from './mock.mjs';
import { buildLabels, paintStart, quietAfter, QUIET_CAP_MS, QUIET_MIN_MS, type Mark } from './labels.mjs';

describe('capture lab mock encoders', () => {
  it('ends an Anthropic tool turn with a tool_use block and stop_reason tool_use', () => {
    const { events } = anthropicEvents({ text: 'hi', tool: { command: 'touch a' } });
    const names = events.map((e) => e[0]);
    expect(names[0]).toBe('message_start');
    expect(names.at(-1)).toBe('message_stop');
    const toolStart = events.find((e) => e[0] === 'content_block_start' && JSON.stringify(e[1]).includes('tool_use'));
    expect(toolStart).toBeDefined();
    expect(JSON.stringify(events.find((e) => e[0] === 'message_delta')?.[1])).toContain('"stop_reason":"tool_use"');
  });

  it('streams text in chunks that join back to the scripted text', () => {
    const text = 'Hello ✻ wörld, esc to interrupt';
    const { events, textDeltas } = anthropicEvents({ text }, { chunkChars: 4 });
    const joined = events.filter((e) => textDeltas.has(e)).map((e) => (e[1] as { delta: { text: string } }).delta.text).join('');
    expect(joined).toBe(text);
  });

  it('completes a Responses stream with response.completed and a function_call item for a tool', () => {
    const { events } = responsesEvents({ tool: { command: 'ls' } }, { shellTool: { name: 'exec_command', parameters: { properties: { cmd: {}, sandbox_permissions: {}, justification: {} } } } });
    expect(events.at(-1)?.[0]).toBe('response.completed');
    const done = events.find((e) => e[0] === 'response.output_item.done');
    expect(JSON.stringify(done?.[1])).toContain('"name":"exec_command"');
  });

  it('asks Codex for escalated permissions when the tool schema offers it', () => {
    const { args } = codexShellCall({ command: 'rm x' }, { name: 'shell', parameters: { properties: { command: { type: 'array' }, with_escalated_permissions: {}, justification: {} } } });
    expect(args).toMatchObject({ command: ['bash', '-lc', 'rm x'], with_escalated_permissions: true });
  });

  it('ends a chat-completions stream with finish_reason tool_calls and [DONE]', () => {
    const { events } = chatEvents({ tool: { command: 'ls' } });
    expect(events.at(-1)?.[1]).toBe('[DONE]');
    expect(JSON.stringify(events.at(-2)?.[1])).toContain('"finish_reason":"tool_calls"');
  });

  it('calls a named chat-completions tool with its scripted input (OpenCode: edit, question), the shell tool otherwise', () => {
    const input = { filePath: 'app.js', oldString: 'a', newString: 'b' };
    const call = (events: ReturnType<typeof chatEvents>['events']) =>
      (events.find(([, d]) => JSON.stringify(d).includes('tool_calls')
        && !JSON.stringify(d).includes('finish_reason":"tool_calls'))?.[1] as { choices: { delta: { tool_calls: { function: { name: string; arguments: string } }[] } }[] })
        .choices[0]?.delta.tool_calls[0]?.function;

    expect(call(chatEvents({ tool: { name: 'edit', input } }, { toolName: 'bash' }).events)).toEqual({ name: 'edit', arguments: JSON.stringify(input) });
    expect(call(chatEvents({ tool: { command: 'ls' } }, { toolName: 'bash' }).events)).toEqual({ name: 'bash', arguments: JSON.stringify({ command: 'ls', description: 'Run a command' }) });
  });

  it('ends a Gemini stream with finishReason STOP and sends no SSE comments', () => {
    const { events } = geminiEvents({ text: 'abc', tool: { command: 'ls' } });
    const wire = events.map(([n, d]) => encodeSse(n, d)).join('');
    expect(wire).not.toMatch(/^:/m);
    expect(JSON.stringify(events.at(-1)?.[1])).toContain('"finishReason":"STOP"');
  });

  it('calls a named Gemini tool with its scripted input (edit: replace), the shell tool otherwise', () => {
    const input = { file_path: 'app.js', instruction: 'x', old_string: 'a', new_string: 'b' };
    const named = geminiEvents({ tool: { name: 'replace', input } });
    const shell = geminiEvents({ tool: { command: 'ls' } }, { toolName: 'run_shell_command' });
    const callOf = (events: unknown[][]) => JSON.stringify(events.find((e) => JSON.stringify(e[1]).includes('functionCall'))?.[1]);
    expect(callOf(named.events)).toContain(JSON.stringify({ functionCall: { name: 'replace', args: input } }));
    expect(callOf(shell.events)).toContain('"name":"run_shell_command","args":{"command":"ls"');
  });

  it('scripts each CLI its own edit tool', async () => {
    const { SCENARIOS } = await import('./scenarios.mjs');
    const first = (agent: string) => SCENARIOS['edit']?.vary(() => 0.3, agent).script[0]?.tool;
    expect(first('claude')).toMatchObject({ name: 'Read' });
    expect(first('gemini')).toMatchObject({ name: 'replace', input: { file_path: 'app.js' } });
    expect(first('codex')?.command).toMatch(/^apply_patch <<'EOF'\n\*\*\* Begin Patch\n\*\*\* Update File: app\.js\n[\s\S]*\*\*\* End Patch\nEOF$/);
    expect(first('codex')?.escalate).toBe(false);
    expect(first('opencode')).toMatchObject({ name: 'edit', input: { filePath: 'app.js', oldString: '  return a + b;' } });
  });

  it('asks each CLI its question with its own tool', async () => {
    const { SCENARIOS } = await import('./scenarios.mjs');
    const tool = (agent: string) => SCENARIOS['question']?.vary(() => 0.3, agent).script[0]?.tool;
    expect(tool('claude')?.name).toBe('AskUserQuestion');
    expect(tool('gemini')).toMatchObject({ name: 'ask_user', input: { questions: [{ type: 'choice', header: 'Runner' }] } });
    expect(tool('opencode')).toMatchObject({ name: 'question', input: { questions: [{ header: 'Runner', multiple: false }] } });
    expect(JSON.stringify(tool('opencode')?.input)).not.toContain('multiSelect');
    // Codex's request_user_input: a snake_case id per question, no multiSelect (its schema forbids extra keys).
    expect(tool('codex')).toMatchObject({ name: 'request_user_input', input: { questions: [{ id: 'test_runner', header: 'Runner' }] } });
    expect(JSON.stringify(tool('codex')?.input)).not.toContain('multiSelect');
  });

  it('plans in OpenCode by switching to its plan agent before the prompt and back to build before the go-ahead', async () => {
    const { SCENARIOS } = await import('./scenarios.mjs');
    const { actions, script } = SCENARIOS['plan']!.vary(() => 0.3, 'opencode');
    const steps = actions.map((a) => (a.do === 'keys' ? `keys ${JSON.stringify(a.keys)}` : String(a.do))).filter((d) => d !== 'idle');
    expect(steps).toEqual(['keys ["\\t"]', 'prompt', 'turn_end', 'keys ["\\t"]', 'prompt', 'turn_end']);
    // No dialog to answer: plan_exit is offered only under OPENCODE_EXPERIMENTAL_PLAN_MODE.
    expect(script.some((s) => s.tool)).toBe(false);
  });

  it('asks OpenCode\'s plan_exit question only in the scenario seeded with its experimental plan mode', async () => {
    const { SCENARIOS } = await import('./scenarios.mjs');
    const { seed } = await import('./seed.mjs');
    const { script, actions } = SCENARIOS['plan-exit']!.vary(() => 0.3, 'opencode');
    expect(script[0]?.tool).toMatchObject({ name: 'plan_exit', input: {} });
    expect(actions.filter((a) => a.do !== 'idle').map((a) => a.do)).toEqual(['keys', 'prompt', 'approve', 'turn_end']);
    const envOf = (options?: { openCodePlanMode?: boolean }) => {
      const runDir = mkdtempSync(join(tmpdir(), 'lab-plan-mode-'));
      try { return seed('opencode', { runDir, baseUrl: 'http://127.0.0.1:1', options: options ?? {} }).env; } finally { rmSync(runDir, { recursive: true, force: true }); }
    };
    expect(envOf(SCENARIOS['plan-exit']!.seed).OPENCODE_EXPERIMENTAL_PLAN_MODE).toBe('1');
    expect(envOf(SCENARIOS['plan']!.seed).OPENCODE_EXPERIMENTAL_PLAN_MODE).toBeUndefined();
  });

  it('delegates to an OpenCode subagent with its task tool, the subagent answering in its own request', async () => {
    const { SCENARIOS } = await import('./scenarios.mjs');
    const { script } = SCENARIOS['subagent']!.vary(() => 0.3, 'opencode');
    expect(script[0]?.tool).toMatchObject({ name: 'task', input: { subagent_type: 'general', description: 'Survey the project' } });
    expect(script[1]?.think).toBeGreaterThanOrEqual(3000);
    expect(script).toHaveLength(3);
  });

  it('calls a namespaced Codex tool (multi_agent_v1) with the agent id the last spawn_agent result named', () => {
    const { events } = responsesEvents({ tool: { namespace: 'multi_agent_v1', name: 'wait_agent', input: { targets: ['a-1'] } } });
    const done = events.find((e) => e[0] === 'response.output_item.done')?.[1] as { item: Record<string, unknown> };
    expect(done.item).toMatchObject({ type: 'function_call', namespace: 'multi_agent_v1', name: 'wait_agent', arguments: '{"targets":["a-1"]}' });
  });

  it('answers a sub-agent\'s requests (another thread-id) only from its own steps, and tags their events', async () => {
    const mock = await startMock();
    try {
      mock.setScript([
        { chunkMs: 0, tool: { namespace: 'multi_agent_v1', name: 'wait_agent', input: { targets: ['{agentId}'] } } },
        { thread: 'sub', text: 'child answer', chunkMs: 0 },
        { text: 'parent answer', chunkMs: 0 },
      ]);
      const post = (thread: string, input: unknown[] = []) => fetch(`${mock.baseUrl}/v1/responses`, { method: 'POST', headers: { 'thread-id': thread }, body: JSON.stringify({ model: 'm', tools: [{ type: 'function', name: 'exec_command' }], input }) }).then((r) => r.text());
      // The parent's request carries spawn_agent's result: a JSON string inside the JSON body.
      const parent = await post('root', [{ type: 'function_call_output', call_id: 'c1', output: JSON.stringify({ agent_id: '01a2-b3', nickname: 'Socrates' }) }]);
      expect(parent).toContain('"arguments":"{\\"targets\\":[\\"01a2-b3\\"]}"');
      expect(await post('child')).toContain('child answer');
      expect(await post('root')).toContain('parent answer');
      const streamEnds = mock.events.filter((e) => e.type === 'stream_end').map((e) => [e.step, e.thread]);
      expect(streamEnds).toEqual([[0, undefined], [1, 'sub'], [2, undefined]]);
    } finally {
      await mock.close();
    }
  });

  it('answers a JSON schema with its first enum value and next_speaker user', () => {
    const v = valueForSchema({ type: 'OBJECT', properties: { model_choice: { type: 'STRING', enum: ['flash', 'pro'] }, next_speaker: { type: 'STRING', enum: ['model', 'user'] }, score: { type: 'INTEGER' } } });
    expect(v).toEqual({ model_choice: 'flash', next_speaker: 'user', score: 0 });
  });

  it('serves scripted steps to main requests and records tool and stream events', async () => {
    const mock = await startMock();
    try {
      mock.setScript([{ text: 'ok', chunkMs: 0, tool: { command: 'touch f' } }]);
      const res = await fetch(`${mock.baseUrl}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, tools: [{ name: 'Bash' }] }) });
      const body = await res.text();
      expect(body).toContain('"partial_json":"{\\"command\\":\\"touch f\\"');
      expect(mock.events.map((e) => e.type)).toEqual(['request', 'first_byte', 'tool_call_sent', 'stream_end']);
      expect(mock.remaining()).toBe(0);
    } finally {
      await mock.close();
    }
  });

  it.each([
    ['Continue CLI', ['Read', 'Write', 'List', 'Bash'], 'Bash'],
    ['Cline CLI', ['read_files', 'search_codebase', 'run_commands', 'editor'], 'run_commands'],
  ])('calls %s\'s own shell tool over chat completions, not the first tool it declares', async (_cli, names, shell) => {
    const mock = await startMock();
    try {
      mock.setScript([{ text: 'ok', chunkMs: 0, tool: { command: 'touch f' } }]);
      const tools = names.map((name) => ({ type: 'function', function: { name, parameters: {} } }));
      const body = await (await fetch(`${mock.baseUrl}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, tools }) })).text();
      expect(body).toContain(`"function":{"name":"${shell}"`);
    } finally {
      await mock.close();
    }
  });

  it('calls a chat-completions shell tool named Bash (Letta Code) rather than the first tool offered', async () => {
    const mock = await startMock();
    try {
      mock.setScript([{ chunkMs: 0, tool: { command: 'touch f' } }]);
      const tools = ['AskUserQuestion', 'Bash', 'Edit'].map((name) => ({ type: 'function', function: { name } }));
      const body = await (await fetch(`${mock.baseUrl}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, tools }) })).text();
      expect(body).toContain('"function":{"name":"Bash","arguments":"{\\"command\\":\\"touch f\\"');
    } finally {
      await mock.close();
    }
  });

  it('answers Qwen Code\'s memory extraction after a turn as a side request, leaving the script alone', async () => {
    const mock = await startMock();
    try {
      mock.setScript([{ chunkMs: 0, text: 'answer' }]);
      const tools = [{ type: 'function', function: { name: 'run_shell_command' } }];
      const post = (system: string) => fetch(`${mock.baseUrl}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, tools, messages: [{ role: 'system', content: system }, { role: 'user', content: [{ type: 'text', text: 'what does app.js do?' }] }] }) }).then((r) => r.text());
      await post('You are now acting as the managed memory extraction subagent for an AI coding assistant.');
      expect(await post('You are Qwen Code, an interactive CLI agent')).toContain('"content":"answer"');
      expect(mock.events.filter((e) => e.type === 'request').map((e) => e.kind)).toEqual(['side', 'main']);
    } finally {
      await mock.close();
    }
  });

  it('gives droid\'s Execute call the risk classification droid requires', () => {
    const { events } = chatEvents({ tool: { command: 'rm notes.txt' } }, { toolName: 'Execute' });
    const call = events.flatMap((e) => (e[1] as { choices?: { delta: { tool_calls?: { function: { name: string; arguments: string } }[] } }[] }).choices ?? []).flatMap((c) => c.delta.tool_calls ?? [])[0];
    expect(call?.function.name).toBe('Execute');
    expect(JSON.parse(call?.function.arguments ?? '{}')).toMatchObject({ command: 'rm notes.txt', riskLevel: 'medium', riskLevelReason: expect.any(String) });
  });

  it('calls another Claude tool with its input, the working folder and plan file filled from the request', async () => {
    const mock = await startMock();
    try {
      mock.setScript([{ chunkMs: 0, tool: { name: 'Write', input: { file_path: '{planFile}', note: '{cwd}/app.js' } } }]);
      const request = { model: 'm', stream: true, tools: [{ name: 'Bash' }, { name: 'Write' }], system: [{ type: 'text', text: 'Primary working directory: /w/p' }], messages: [{ role: 'user', content: 'No plan file exists yet. You should create your plan at /h/.claude/plans/x-y.md using the Write tool.' }] };
      const body = await (await fetch(`${mock.baseUrl}/v1/messages`, { method: 'POST', body: JSON.stringify(request) })).text();
      expect(body).toContain('"name":"Write"');
      expect(body).toContain('"partial_json":"{\\"file_path\\":\\"/h/.claude/plans/x-y.md\\",\\"note\\":\\"/w/p/app.js\\"}"');
      expect(mock.events.find((e) => e.type === 'tool_call_sent')?.detail).toBe('Write');
    } finally {
      await mock.close();
    }
  });

  it('answers an error step with the API\'s error shape and tells a retried error from a final one', async () => {
    const mock = await startMock();
    try {
      mock.setScript([{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, retryable: true }, { error: { status: 400, type: 'invalid_request_error', message: 'bad' } }]);
      const post = () => fetch(`${mock.baseUrl}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, tools: [{ name: 'Bash' }] }) });
      const first = await post();
      expect(first.status).toBe(529);
      expect(await first.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      expect((await post()).status).toBe(400);
      const ends = mock.events.filter((e) => e.type === 'stream_end');
      expect(ends.map((e) => [e.error, e.retryable])).toEqual([[529, true], [400, false]]);
    } finally {
      await mock.close();
    }
  });
});

describe('capture lab labels', () => {
  it('marks a settling window uncertain after each transition', () => {
    const labels = buildLabels([{ t: 1000, state: 'idle', settle: 0 }, { t: 3000, state: 'working' }, { t: 6000, state: 'uncertain' }], [], 0);
    expect(labels).toEqual([
      { t: 0, state: 'uncertain' },
      { t: 1, state: 'idle' },
      { t: 3, state: 'uncertain' },
      { t: 3.4, state: 'working' },
      { t: 6, state: 'uncertain' },
    ]);
  });

  it('ends a quiet settle only when output has stopped', () => {
    const outputs = [1100, 1400, 1700, 2000];
    expect(quietAfter(outputs, 1000)).toBe(2000 + 350);
    expect(quietAfter([], 1000)).toBe(1000 + QUIET_MIN_MS);
    const busy = Array.from({ length: 100 }, (_, i) => 1000 + i * 100);
    expect(quietAfter(busy, 1000)).toBe(1000 + QUIET_CAP_MS);
  });

  it.each([
    {
      // The driver passes an agent profile's submitSettleMs/toolSettleMs, undefined for most agents.
      name: 'uses the settle window a mark carries and the default when it is undefined',
      marks: [
        { t: 1000, state: 'idle', settle: 0 },
        { t: 2000, state: 'working', settle: 900 },
        { t: 5000, state: 'blocked', settle: 1500 },
        { t: 8000, state: 'working', settle: undefined },
      ],
      expected: [
        { t: 0, state: 'uncertain' },
        { t: 1, state: 'idle' },
        { t: 2, state: 'uncertain' },
        { t: 2.9, state: 'working' },
        { t: 5, state: 'uncertain' },
        { t: 6.5, state: 'blocked' },
        { t: 8, state: 'uncertain' },
        { t: 8.4, state: 'working' },
      ],
    },
    {
      // The e2e run's Claude deny (tmux, hooks off, 2026-12-02 03:58): Enter at 6.718 s, Claude's
      // 1.2 s submit window, the tool call at 7.894 s and its 1 s drawing window.
      name: "restarts the uncertain span where a new state begins inside the previous mark's window (the scorer times the change from there)",
      marks: [
        { t: 3970, state: 'idle', settle: 0 },
        { t: 6718, state: 'working', settle: 1200 },
        { t: 7894, state: 'blocked', settle: 1000 },
        { t: 10081, state: 'idle', settle: 500 },
      ],
      expected: [
        { t: 0, state: 'uncertain' },
        { t: 3.97, state: 'idle' },
        { t: 6.718, state: 'uncertain' },
        { t: 7.894, state: 'uncertain' },
        { t: 8.894, state: 'blocked' },
        { t: 10.081, state: 'uncertain' },
        { t: 10.581, state: 'idle' },
      ],
    },
  ] satisfies { name: string; marks: Mark[]; expected: unknown[] }[])('$name', ({ marks, expected }) => {
    expect(buildLabels(marks, [], 0)).toEqual(expected);
  });

  it('drops a state whose settle window reaches the next mark', () => {
    const labels = buildLabels([{ t: 0, state: 'working' }, { t: 200, state: 'blocked', settle: 500 }, { t: 400, state: 'working' }], [], 0);
    expect(labels.map((l) => l.state)).toEqual(['uncertain', 'uncertain', 'uncertain', 'working']);
    expect(labels.filter((l) => l.state !== 'uncertain')).toEqual([{ t: 0.8, state: 'working' }]);
  });

});

describe('capture lab restart paints', () => {
  it('dates a restarted CLI\'s paint from its first large chunk, not from its boot-time queries and title', () => {
    // recordings/gemini/first-run-120x40.cast after the restart: queries (39 bytes), the title
    // (85), then the auth box (802 bytes at 13.061 s), then the full redraw.
    const sizes = [39, 85, 6, 2, 802, 6, 16, 8, 85, 8, 3607];
    expect(paintStart(sizes, 0, 10)).toBe(4);
  });

  it('starts from the restarted process\'s first chunk and falls back when nothing large came', () => {
    expect(paintStart([900, 40, 300], 1, 2)).toBe(2);
    expect(paintStart([40, 50], 0, 1)).toBe(1);
  });
});
