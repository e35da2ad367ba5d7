// Types for the capture lab's relabeling (relabel.mjs), so its offline tests typecheck.
export interface TimedEvent { t: number; type?: string; detail?: string; state?: string }
export interface RecordingMeta {
  agent?: string;
  clock_offset_ms: number | null;
  label_marks: TimedEvent[];
  driver_events: TimedEvent[];
  mock_events: TimedEvent[];
  titles?: TimedEvent[];
}
export function realignMeta(meta: RecordingMeta, castText: string): number | undefined;
export function relabel(castPath: string, options?: { realign?: boolean }): { t: number; state: string }[];
