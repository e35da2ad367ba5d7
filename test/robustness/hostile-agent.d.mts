/** Types for hostile-agent.mjs (the robustness suite imports its payload builder). */
export function hostileParts(seed: number): [string, Buffer][];
/** xorshift32 from `seed`: the next 32-bit value on each call. */
export function rng(seed: number): () => number;
