// The emulator's clock: manual (tests drive it; every write moves it 1 ms so writes stay ordered)
// or real (wall time, still freezable/advanceable for demos). Writes take their time from stamp().

import { ManualClock } from '../domain/clock.js';
import type { EmulatorClock } from './types.js';

export class EmulatorClockImpl extends ManualClock implements EmulatorClock {
  private mode: 'manual' | 'real';
  private ms: number;
  /** real mode: offset added to wall time by advance()/set(). */
  private offset = 0;
  private frozenAt: number | null = null;
  /** Last stamp handed out, so real-mode writes never go backwards or collide by accident. */
  private lastStamp = -Infinity;

  constructor(mode: 'manual' | 'real', start: Date) {
    super(start);
    this.mode = mode;
    this.ms = start.getTime();
  }

  private raw(): number {
    if (this.frozenAt !== null) return this.frozenAt;
    return this.mode === 'manual' ? this.ms : Date.now() + this.offset;
  }

  override now(): Date {
    return new Date(this.raw());
  }

  override advance(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt += ms;
    if (this.mode === 'manual') this.ms += ms;
    else this.offset += ms;
  }

  override set(at: Date | number): void {
    const target = typeof at === 'number' ? at : at.getTime();
    if (this.frozenAt !== null) this.frozenAt = target;
    if (this.mode === 'manual') this.ms = target;
    else this.offset = target - Date.now();
    this.lastStamp = -Infinity;
  }

  freeze(): void {
    this.frozenAt = this.raw();
  }

  unfreeze(): void {
    if (this.frozenAt === null) return;
    if (this.mode === 'manual') this.ms = this.frozenAt;
    this.frozenAt = null;
  }

  /** Time of one write. Manual: now, then +1 ms. Real: wall time, nudged to stay increasing. */
  stamp(): string {
    if (this.frozenAt !== null) return new Date(this.frozenAt).toISOString();
    if (this.mode === 'manual') {
      const at = this.ms;
      this.ms += 1;
      return new Date(at).toISOString();
    }
    const at = Math.max(this.raw(), this.lastStamp + 1);
    this.lastStamp = at;
    return new Date(at).toISOString();
  }

  /** Back to the start time (reset()). */
  restart(start: Date): void {
    this.frozenAt = null;
    this.lastStamp = -Infinity;
    if (this.mode === 'manual') this.ms = start.getTime();
    else this.offset = 0;
  }
}
