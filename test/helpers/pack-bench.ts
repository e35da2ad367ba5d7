/**
 * Speed of pack evaluation (not a test: measured here, not asserted). Build, then:
 *   node dist/test/helpers/pack-bench.js [ITERATIONS]
 * Evaluates every bundled pack, and a synthetic 40-rule pack spread over 8 regions (several
 * whole-screen), against a dense 200x50 screen that is a fresh set of strings on every call (as
 * after real output), and prints median and p90 microseconds per evaluation.
 */
import { performance } from 'node:perf_hooks';
import { PackRegistry } from '../../src/app/pack-registry.js';
import { BUNDLED_PACKS_DIR } from '../../src/adapters/paths.js';
import { evaluatePack } from '../../src/core/packs/evaluate.js';
import type { CompiledPack } from '../../src/core/packs/compile.js';
import type { PackInput } from '../../src/core/packs/regions.js';
import { compiledPack, packToml } from './pack-toml.js';

const COLS = 200;
const ROWS = 50;

function syntheticPack(): CompiledPack {
  const regions = ['bottom_nonempty:12', 'bottom:20', 'screen', 'prompt_box_body', 'above_prompt_box', 'after_last_rule', 'last_nonempty_line', 'osc_title'];
  const rules: string[] = [];
  for (let i = 0; i < 40; i++) {
    const head = `[[rule]]\nid = "r${i}"\nstate = "${['working', 'blocked', 'idle'][i % 3] ?? 'idle'}"\npriority = ${i * 10}\nregion = "${regions[i % regions.length] ?? 'screen'}"`;
    const body = [
      `requires_all = ["word${i} nothing"]`,
      `regex = ['do you want to \\w+ ${i}']`,
      `line_regex = ['^\\s*❯\\s*\\d\\. ${i}']\nforbids_regex = ['^>\\s']`,
      `gate = { any = [ { contains = "yes${i}" }, { not = { line_regex = '^\\s*$' } } ] }\nforbids = ["zzz${i}"]\nregex = ['esc to (interrupt|cancel) ${i}']`,
    ][i % 4];
    rules.push(`${head}\n${body ?? ''}`);
  }
  return compiledPack(packToml(rules.join('\n\n'), { agent: 'synthetic-40' }));
}

function screen(tick: number): PackInput {
  const rows: string[] = [];
  for (let r = 0; r < ROWS - 4; r++) rows.push(`│ line ${r} tick ${tick} `.padEnd(COLS - 20, 'lorem ipsum dolor sit amet '));
  rows.push('─'.repeat(COLS), `> typed input ${tick}`, '─'.repeat(COLS), '  ? for shortcuts');
  return { screen: { rows, cols: COLS, cursorRow: ROWS - 3, cursorCol: 10, isAlternateScreen: false, revision: tick }, title: `⠋ bench ${tick}`, progress: '3' };
}

function measure(compiled: CompiledPack, iterations: number): void {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const input = screen(i);
    const started = performance.now();
    evaluatePack(compiled, input);
    samples.push((performance.now() - started) * 1000);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number): string => (samples[Math.floor(samples.length * q)] ?? 0).toFixed(1);
  console.log(`${compiled.pack.agent.padEnd(14)} ${String(compiled.rules.length).padStart(3)} rules  median ${at(0.5)} µs  p90 ${at(0.9)} µs`);
}

const iterations = Number(process.argv[2] ?? 5000);
const registry = PackRegistry.load({ bundledDir: BUNDLED_PACKS_DIR, userDir: undefined });
for (const pack of [...registry.packs().map((p) => p.compiled), syntheticPack()]) measure(pack, iterations);
