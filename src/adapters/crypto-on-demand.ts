/**
 * node:crypto, loaded at the first call rather than with the module that needs it. Loading it
 * costs ~0.7 MB of a process's private memory (OpenSSL's tables), and a live session needs it
 * only to record (the pack's digest, the recording's name) or for Codex's hook hashes: a plain
 * session never pays (docs/architecture.md, "What a session costs").
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let loaded: typeof import('node:crypto') | undefined;

function crypto(): typeof import('node:crypto') {
  loaded ??= require('node:crypto') as typeof import('node:crypto');
  return loaded;
}

/** SHA-256 of `text` (UTF-8), as lowercase hex. */
export function sha256Hex(text: string): string {
  return crypto().createHash('sha256').update(text).digest('hex');
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return crypto().randomBytes(bytes).toString('hex');
}
