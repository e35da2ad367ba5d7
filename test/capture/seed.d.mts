// Types for the capture lab's seeding (seed.mjs), so its offline tests typecheck.
export function seed(
  agent: string,
  opts: { runDir: string; baseUrl: string; firstRun?: boolean; version?: string; personality?: string; options?: { allowShell?: string[]; defaultMode?: string; bare?: boolean; codexSandbox?: string; openCodePlanMode?: boolean } },
): { env: Record<string, string>; args: string[]; cwd: string; home: string };
