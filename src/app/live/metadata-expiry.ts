/**
 * Reported metadata expires by TTL: the record is republished when the next key runs out, so
 * readers drop it. One timer, re-planned after every report and every expiry.
 */
import type { Clock } from '../../adapters/clock.js';

export class MetadataExpiry {
  private timer: NodeJS.Timeout | undefined;
  private isStopped = false;

  constructor(
    private readonly clock: Clock,
    /** When the next metadata key expires (session clock), if any does. */
    private readonly nextExpiryMs: () => number | undefined,
    private readonly republish: () => void,
  ) {}

  arm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const atMs = this.nextExpiryMs();
    if (atMs === undefined || this.isStopped) return;
    this.timer = setTimeout(
      () => {
        this.republish();
        this.arm();
      },
      Math.max(0, atMs - this.clock.nowMs()) + 1,
    );
    this.timer.unref();
  }

  stop(): void {
    this.isStopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
