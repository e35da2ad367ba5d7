// A hostile "agent" for test/robustness: run wrapped (`agentwrap run -- node hostile-agent.mjs
// TAG [SEED]`), it puts its pty in raw mode (so the bytes it writes are the bytes agentwrap
// relays, with no \n → \r\n), prints `<<TAG-BEGIN>>`, then a seeded flood of hostile output,
// then `<<TAG-END LENGTH SHA256>>` over exactly the flood's bytes, and waits: `q` on stdin
// exits 0 (`t` sets a new title). The test hashes what reached the outer terminal between the markers.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { writeSync } from 'node:fs';

const [tag = 'tag', seedText = '1'] = process.argv.slice(2);
const MiB = 1024 * 1024;

/** xorshift32: the same flood for the same seed (the fuzz tests draw from it too). */
export function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** The flood, as named parts (the test reports what was tried). */
export function hostileParts(seed) {
  const next = rng(seed);
  const pick = (list) => list[next() % list.length];
  const parts = [];
  const random = Buffer.alloc(MiB);
  for (let i = 0; i < random.length; i++) random[i] = next() & 0xff;
  parts.push(['random bytes (1 MiB)', random]);

  const escapes = [];
  const starts = ['\x1b', '\x1b[', '\x1b[?', '\x1b]', '\x1b]0;', '\x1bP', '\x1b_', '\x1b^', '\x1bX', '\x1b[>', '\x1b[?1049', '\x1b]9;4;'];
  for (let i = 0; i < 4000; i++) {
    escapes.push(pick(starts));
    if (next() % 4 === 0) escapes.push('9'.repeat(next() % 3000));
    if (next() % 3 === 0) escapes.push(pick(['x', '\x18', '\x1a', '\x07', '\x1b\\', ';', '\r\n']));
  }
  escapes.push(`\x1b[${'1;'.repeat(100_000)}m`, `\x1b[?${'9'.repeat(200_000)}h`, `\x1bP${'q'.repeat(MiB / 2)}\x1b\\`);
  parts.push(['truncated and overlong escape sequences', Buffer.from(escapes.join(''), 'utf8')]);

  parts.push(['OSC 0 title of 4 MiB (BEL)', Buffer.from(`\x1b]0;${'T'.repeat(4 * MiB)}\x07`, 'utf8')]);
  parts.push(['OSC 2 title of 2 MiB (ST)', Buffer.from(`\x1b]2;${'\u00e9'.repeat(MiB)}\x1b\\`, 'utf8')]);
  parts.push(['unterminated OSC of 1 MiB, then CAN', Buffer.from(`\x1b]2;${'u'.repeat(MiB)}\x18`, 'utf8')]);

  const garbage = [];
  const values = ['', '-1', '999999999999', 'abc', '1;', ';;;', '\u202e', '1;50;extra', '4;-7', '3;NaN', '  2 ;  40', '1;1e9', '\x01\x02'];
  for (let i = 0; i < 2000; i++) garbage.push(`\x1b]9;4;${pick(values)};${pick(values)}${next() % 2 === 0 ? '\x07' : '\x1b\\'}`);
  parts.push(['OSC 9;4 progress with garbage values (2000)', Buffer.from(garbage.join(''), 'utf8')]);

  parts.push(['a 1 MiB line', Buffer.from(`${'L'.repeat(MiB)}\n`, 'utf8')]);
  parts.push(['10 million newlines', Buffer.alloc(10_000_000, 0x0a)]);

  const invalid = Buffer.alloc(256 * 1024);
  const bad = [[0xff], [0xfe], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x80], [0xbf]];
  for (let i = 0; i < invalid.length; ) for (const byte of pick(bad)) if (i < invalid.length) invalid[i++] = byte;
  parts.push(['invalid UTF-8 (256 KiB)', invalid]);

  // Last title wins: control and bidi characters, a BOM, and longer than a record allows. (A C1
  // control would abort the OSC in xterm's parser, and ESC always does: those are fuzzed in
  // fuzz.test.ts against the title sanitizer directly.)
  const evil = `final\u202eevil\u2066title\u200f\u061c\x01\x7f\t\ufeff${'W'.repeat(600)}\u202c`;
  // Then progress "indeterminate": a state change (idle → working), so the record is rewritten
  // with this title (a title change alone does not republish it yet).
  parts.push(['title with control and bidi characters', Buffer.from(`\x1b]2;${evil}\x07\x1b]9;4;3\x07\r\ntail\r\n`, 'utf8')]);
  return parts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The pty's own line discipline would turn \n into \r\n: raw, so bytes pass as written.
  spawnSync('stty', ['raw', '-echo'], { stdio: [0, 'ignore', 'ignore'] });
  const out = (data) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let offset = 0; offset < bytes.length; ) {
      try {
        offset += writeSync(1, bytes, offset, Math.min(64 * 1024, bytes.length - offset));
      } catch (error) {
        if (error.code !== 'EAGAIN') throw error;
      }
    }
  };
  out(`<<${tag}-BEGIN>>`);
  const hash = createHash('sha256');
  let length = 0;
  for (const [, bytes] of hostileParts(Number(seedText))) {
    out(bytes);
    hash.update(bytes);
    length += bytes.length;
  }
  out(`<<${tag}-END ${length} ${hash.digest('hex')}>>`);
  // `t`: a new title (so the test can see the detector react after the flood); `q`: exit 0.
  let ticks = 0;
  process.stdin.on('data', (chunk) => {
    for (const byte of chunk) {
      if (byte === 0x74) out(`\x1b]2;after-flood-${++ticks}\x07`);
      if (byte === 0x71) process.exit(0);
    }
  });
}
