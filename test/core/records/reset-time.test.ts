import { describe, expect, it } from 'vitest';
import { parseResetTime } from '../../../src/core/records/reset-time.js';

// 2026-12-07 21:30:00 UTC; the zone is UTC+1 (22:30 local).
const NOW = Date.UTC(2026, 11, 7, 21, 30);
const PLUS_ONE = 60;

describe('parseResetTime', () => {
  it.each([
    ["You've hit your usage limit. Try again at 11:05 PM.", Date.UTC(2026, 11, 7, 22, 5)],
    ['5-hour limit reached ∙ resets 8pm', Date.UTC(2026, 11, 8, 19, 0)],
    ['limit reached, resets at 9am (Europe/Paris)', Date.UTC(2026, 11, 8, 8, 0)],
    ['or try again at Dec 8th, 2026 1:15 AM.', Date.UTC(2026, 11, 8, 0, 15)],
    ['quota resets at 23:45', Date.UTC(2026, 11, 7, 22, 45)],
    ['Please retry in 37.2s.', NOW + 37_200],
    ['try again in 2h 17m', NOW + (2 * 60 + 17) * 60_000],
    ['Your limit resets in 5 hours', NOW + 5 * 3_600_000],
  ])('%s', (text, expected) => {
    expect(parseResetTime(text, NOW, PLUS_ONE)).toBe(expected);
  });

  it.each([
    ['API Error: 400 messages.1.content: the conversation is too long'],
    ['✻ API error · retrying in 2s · attempt 1/10'.replace('retrying', 'waiting')],
    ['meet at 10:30 for lunch'],
    ['try again in 900 days'],
  ])('names no reset time in %s', (text) => {
    expect(parseResetTime(text, NOW, PLUS_ONE)).toBeUndefined();
  });
});
