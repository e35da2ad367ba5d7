/** Types for hostile-agent.mjs (the robustness suite imports its payload builder). */
export function hostileParts(seed: number): [string, Buffer][];
