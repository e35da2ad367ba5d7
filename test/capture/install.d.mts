// Types for the capture lab's installer (install.mjs), so its offline tests typecheck.
export interface InstallFix { overrides?: Record<string, string>; absent?: string[]; legacyPeerDeps?: boolean }
export function applyInstallFix(fix: InstallFix | undefined, prefix: string, pj: Record<string, unknown>): string[];
export function cacheRoot(): string;
export function prefixFor(pkg: string, version: string): string;
