export type Failure = 'usage-limit' | 'rate-limited' | 'overloaded' | 'auth' | 'network' | 'api-error';
export const FAILURES: Failure[];
/** `{ drop: true }` for network (no answer), else the HTTP answer. */
export interface FailureAnswer { drop?: true; status?: number; headers?: Record<string, string>; body?: any }
export function failureAnswer(api: string, failure: Failure, opts?: { nowMs?: number; resetInMs?: number; retryAfterS?: number; apiError?: 'context-length' | 'bad-parameter' }): FailureAnswer;
