/**
 * A recording with a tick forced at a chosen moment, to replay what the live loop saw when its
 * tick fell there: a /proc sample line forces a tick at its time (the live loop sampled /proc on
 * its tick), so the sample before `atS` is copied to `atS`.
 */
import { PROCESS_SAMPLE_CODE } from '../../src/core/recordings/recorded-evidence.js';
import type { Recording } from '../../src/core/recordings/recording.js';

export function withTickAt(source: Recording, atS: number): Recording {
  const sample = [...source.events].reverse().find((event) => event.kind === PROCESS_SAMPLE_CODE && event.t < atS);
  if (sample === undefined) throw new Error('the recording has no /proc sample before the forced tick');
  const events = [...source.events];
  events.splice(events.findIndex((event) => event.t > atS), 0, { t: atS, kind: PROCESS_SAMPLE_CODE, data: sample.data });
  return { ...source, events };
}
