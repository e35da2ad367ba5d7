import { describe, expect, it } from 'vitest';
import { loadNativeRelay } from '../../../src/adapters/relay.js';
import {
  PROBE_ANSWER,
  ProgramStatusFilter,
  STATUS_AGENT_PROBED,
  STATUS_AGENT_SPOKE,
  STATUS_ANSWERED_AGENT,
  STATUS_OUTER_UNDERSTANDS,
} from '../../../src/adapters/terminal/program-status.js';

const PROBE_BEL = '\x1b]7501;?\x07';
const PROBE_ST = '\x1b]7501;?\x1b\\';
const DA1 = '\x1b[c';
const WORKING = '\x1b]7501;state=working:app=claude-code\x1b\\';
const IDLE_BEL = '\x1b]7501;state=idle:app=claude-code\x07';
const OUTER_REPLY = '\x1b]7501;?1\x1b\\';

/** One filter, either the TypeScript one or the relay's C port, driven the same way. */
interface Driver {
  output(chunk: string): { pass: string; answers: number };
  input(chunk: string): string;
  ownProbe(): void;
  bits(): number;
}

function tsDriver(): Driver {
  const filter = new ProgramStatusFilter();
  return {
    output: (chunk) => {
      const { pass, answers } = filter.filterOutput(Buffer.from(chunk, 'latin1'));
      return { pass: pass.toString('latin1'), answers };
    },
    input: (chunk) => filter.filterInput(Buffer.from(chunk, 'latin1')).toString('latin1'),
    ownProbe: () => filter.noteOwnProbe(),
    bits: () => filter.bits,
  };
}

const load = loadNativeRelay({});
const native = load.ok && load.module.statusCreate !== undefined ? load.module : undefined;

function cDriver(): Driver {
  if (native?.statusCreate === undefined || native.statusOutput === undefined || native.statusInput === undefined || native.statusOwnProbe === undefined)
    throw new Error('the relay addon has no 7501 filter');
  const { statusOutput, statusInput, statusOwnProbe } = native;
  const handle = native.statusCreate();
  let bits = 0;
  return {
    output: (chunk) => {
      const result = statusOutput(handle, Buffer.from(chunk, 'latin1'));
      bits = result.bits;
      return { pass: result.pass.toString('latin1'), answers: result.answers };
    },
    input: (chunk) => {
      const result = statusInput(handle, Buffer.from(chunk, 'latin1'));
      bits = result.bits;
      return result.pass.toString('latin1');
    },
    ownProbe: () => statusOwnProbe(handle),
    bits: () => bits,
  };
}

/** Feeds `chunks` of output and concatenates what passes, with the answer count. */
function outputAll(driver: Driver, chunks: readonly string[]): { pass: string; answers: number; answeredIn: number[] } {
  let pass = '';
  let answers = 0;
  const answeredIn: number[] = [];
  chunks.forEach((chunk, index) => {
    const result = driver.output(chunk);
    pass += result.pass;
    answers += result.answers;
    if (result.answers > 0) answeredIn.push(index);
  });
  return { pass, answers, answeredIn };
}

const drivers: Array<[string, () => Driver]> = [['ProgramStatusFilter', tsDriver]];
if (native !== undefined) drivers.push(['the relay thread (C port)', cDriver]);

describe.each(drivers)('OSC 7501 program status: %s', (_name, make) => {
  it('answers a probe (BEL form) in the chunk that completes it, lets the probe through, and strips what the answer brought out', () => {
    const d = make();
    const startup = `\x1b[?25l${PROBE_BEL}${DA1}hello`;
    expect(d.output(startup)).toEqual({ pass: startup, answers: 1 });
    expect(d.bits()).toBe(STATUS_AGENT_PROBED | STATUS_ANSWERED_AGENT);
    const later = `before${WORKING}\x1b]0;title\x07 middle ${IDLE_BEL}after\x1b[31m`;
    expect(d.output(later)).toEqual({ pass: 'before\x1b]0;title\x07 middle after\x1b[31m', answers: 0 });
    expect(d.bits() & STATUS_AGENT_SPOKE).toBe(0);
  });

  it('finds a probe in ST form split at every byte, answers it once, and strips a status split at every byte', () => {
    const text = `ab${PROBE_ST}${DA1}cd`;
    for (let cut = 0; cut <= text.length; cut++) {
      const d = make();
      const result = outputAll(d, [text.slice(0, cut), text.slice(cut)]);
      expect(result.pass).toBe(text);
      expect(result.answers).toBe(1);
      // Answered with the chunk that holds the terminator, so before DA1 went out.
      expect(result.answeredIn).toEqual([cut >= 2 + PROBE_ST.length ? 0 : 1]);
    }
    const status = `x${WORKING}y\x1b]7502;other\x07z`;
    for (let cut = 0; cut <= status.length; cut++) {
      const d = make();
      d.output(PROBE_BEL);
      expect(outputAll(d, [status.slice(0, cut), status.slice(cut)]).pass).toBe('xy\x1b]7502;other\x07z');
    }
  });

  it('lets 7501 through untouched from an agent that never probed (Codex)', () => {
    const d = make();
    const codex = `${WORKING}text${IDLE_BEL}\x1b]7501;state=clear:app=codex\x1b\\`;
    expect(d.output(codex)).toEqual({ pass: codex, answers: 0 });
    expect(d.bits()).toBe(STATUS_AGENT_SPOKE);
  });

  it("passes the terminal's own answer on to the agent and stops stripping once it came", () => {
    const d = make();
    d.output(`${PROBE_BEL}${DA1}`);
    expect(d.output(WORKING).pass).toBe('');
    expect(d.input(`${OUTER_REPLY}\x1b[?62;22c`)).toBe(`${OUTER_REPLY}\x1b[?62;22c`);
    expect(d.bits() & STATUS_OUTER_UNDERSTANDS).toBe(STATUS_OUTER_UNDERSTANDS);
    expect(d.output(`a${IDLE_BEL}b`).pass).toBe(`a${IDLE_BEL}b`);
    expect(d.bits() & STATUS_AGENT_SPOKE).toBe(STATUS_AGENT_SPOKE);
  });

  it('does not answer a probe once the terminal has said it understands', () => {
    const d = make();
    d.ownProbe();
    expect(d.input(`k${OUTER_REPLY}j`)).toBe('kj');
    expect(d.output(`${PROBE_BEL}${DA1}`)).toEqual({ pass: `${PROBE_BEL}${DA1}`, answers: 0 });
    expect(d.output(WORKING).pass).toBe(WORKING);
  });

  it("keeps the reply to agentwrap's own probe from the agent, and never holds the Escape key", () => {
    const d = make();
    d.ownProbe();
    expect(d.input('\x1b')).toBe('\x1b');
    expect(d.input('x')).toBe('x');
    expect(d.input('\x1b]0;t\x07')).toBe('\x1b]0;t\x07');
    expect(d.input('\x1b]75')).toBe('');
    expect(d.input('01;?1\x1b\\q')).toBe('q');
    expect(d.bits()).toBe(STATUS_OUTER_UNDERSTANDS);
    // Answered: a second reply is nobody's to swallow.
    expect(d.input(OUTER_REPLY)).toBe(OUTER_REPLY);
  });

  it('leaves a tmux passthrough string alone while stripping', () => {
    const d = make();
    d.output(PROBE_BEL);
    const wrapped = '\x1bPtmux;\x1b\x1b]7501;state=idle\x07\x1b\\after';
    expect(d.output(wrapped).pass).toBe(wrapped);
  });
});

describe.runIf(native !== undefined)('the C port against ProgramStatusFilter', () => {
  it('agrees on random streams cut at random places', () => {
    const pieces = [PROBE_BEL, PROBE_ST, DA1, WORKING, IDLE_BEL, OUTER_REPLY, '\x1b', '\x1b]', '\x1b]75', '\x1b\\', '\x07', 'plain ', '\x1b[1;2H', '\x1bPq\x1b\x1b]7501;x\x1b\\', '\x1b]0;t\x07', '\x18', 'é'];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 300; run++) {
      const ts = tsDriver();
      const c = cDriver();
      if (random(3) === 0) {
        ts.ownProbe();
        c.ownProbe();
      }
      for (let step = 0; step < 12; step++) {
        let chunk = '';
        const count = 1 + random(6);
        for (let k = 0; k < count; k++) chunk += pieces[random(pieces.length)];
        const cut = random(chunk.length + 1);
        const parts = [chunk.slice(0, cut), chunk.slice(cut)];
        if (random(2) === 0) {
          for (const part of parts) expect(c.output(part)).toEqual(ts.output(part));
        } else {
          for (const part of parts) expect(c.input(part)).toBe(ts.input(part));
        }
        expect(c.bits()).toBe(ts.bits());
      }
    }
  });
});

it('answers with what Ghostty answers', () => {
  expect(PROBE_ANSWER).toBe(OUTER_REPLY);
});
