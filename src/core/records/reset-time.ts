/**
 * When a limit lifts, read from what the agent drew: the record's `until` (docs/errors.md).
 * Agents say it two ways: a time of day ("try again at 9:05 PM", "resets 8pm", "reset at 20:00")
 * or a wait ("Please retry in 37.2s", "try again in 2h 17m", "resets in 5 hours"). Pure: the
 * caller gives the wall time and the local time zone's offset, since a time of day is the
 * user's local one and core reads no clock.
 */

/** The screen text examined is cut to this: the phrase sits in the last rows anyway. */
const MAX_TEXT = 8_192;
const DAY_MS = 86_400_000;
/** A wait longer than this is not a reset time (a number that happens to follow "in"). */
const MAX_WAIT_MS = 8 * DAY_MS;

const UNIT_MS: Readonly<Record<string, number>> = { d: DAY_MS, h: 3_600_000, m: 60_000, s: 1_000 };

const LEAD = String.raw`(?:retry|try again|resets?|available again|limit lifts)`;
const AMOUNT = String.raw`(\d{1,6}(?:\.\d+)?)\s*(d(?:ays?)?|h(?:ours?|rs?)?|m(?:in(?:utes?|s)?)?|s(?:ec(?:onds?|s)?)?)\b`;
const WAIT = new RegExp(String.raw`\b${LEAD}\s+in\s+((?:${AMOUNT}[\s,]*(?:and\s+)?){1,4})`, 'i');
const PART = new RegExp(AMOUNT, 'gi');
const CLOCK_12 = new RegExp(String.raw`\b${LEAD}(?:\s+at)?\s+(?:[A-Z][a-z]{2,8}\.? \d{1,2}(?:st|nd|rd|th)?,? (?:\d{4},? )?)?(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b`, 'i');
const CLOCK_24 = new RegExp(String.raw`\b${LEAD}(?:\s+at)?\s+([01]?\d|2[0-3]):([0-5]\d)\b(?!\s*[ap]\.?m)`, 'i');

/**
 * Unix ms when the limit the text names lifts, or undefined when it names none. A time of day is
 * its next occurrence after `nowWallMs` in the zone `utcOffsetMinutes` east of UTC.
 */
export function parseResetTime(text: string, nowWallMs: number, utcOffsetMinutes: number): number | undefined {
  const tail = text.length > MAX_TEXT ? text.slice(-MAX_TEXT) : text;
  const wait = WAIT.exec(tail);
  if (wait !== null) {
    let total = 0;
    for (const part of (wait[1] ?? '').matchAll(PART)) total += Number(part[1]) * (UNIT_MS[(part[2] ?? 's')[0]?.toLowerCase() ?? 's'] ?? 0);
    if (total > 0 && total <= MAX_WAIT_MS) return Math.round(nowWallMs + total);
  }
  const twelve = CLOCK_12.exec(tail);
  if (twelve !== null) {
    const hour = Number(twelve[1]);
    if (hour >= 1 && hour <= 12) return nextTimeOfDay((hour % 12) + (twelve[3]?.toLowerCase() === 'p' ? 12 : 0), Number(twelve[2] ?? '0'), nowWallMs, utcOffsetMinutes);
  }
  const twentyFour = CLOCK_24.exec(tail);
  if (twentyFour !== null) return nextTimeOfDay(Number(twentyFour[1]), Number(twentyFour[2]), nowWallMs, utcOffsetMinutes);
  return undefined;
}

function nextTimeOfDay(hour: number, minute: number, nowWallMs: number, utcOffsetMinutes: number): number | undefined {
  if (minute > 59) return undefined;
  const offsetMs = utcOffsetMinutes * 60_000;
  const localDayStart = Math.floor((nowWallMs + offsetMs) / DAY_MS) * DAY_MS;
  const candidate = localDayStart + hour * 3_600_000 + minute * 60_000 - offsetMs;
  return candidate > nowWallMs ? candidate : candidate + DAY_MS;
}
