/**
 * The forwarding thread's CPU priority (docs/retranslators.md, "Priority and the backlog bound"). The
 * thread starts lowered (`nice`, FSM_FORWARD_NICE): under a flood the gateway's threads get the CPU
 * first and forwarding takes what is left, so ingest barely slows. A lowered thread could fall behind
 * without limit while the flood lasts, so once a retranslator's backlog passes `urgentBacklog`
 * (FSM_FORWARD_URGENT_BACKLOG) the thread returns to the normal priority and competes with ingest as an
 * equal until the backlog is below half of it (the gap keeps it from flapping at the line).
 */
export interface PriorityOptions {
  /** 0..19; 0 keeps the normal priority throughout. */
  nice: number;
  /** 0: never raised. */
  urgentBacklog: number;
}

export class PriorityGovernor {
  /** The thread is lowered now (it starts so when `nice` > 0: ts-entry applies it). */
  lowered: boolean;
  /** Times the thread went to the normal priority (shown by benchmarks). */
  raises = 0;

  constructor(
    private opts: PriorityOptions,
    /** Sets the calling thread's priority; answers whether it was applied (raising may need privileges). */
    private apply: (nice: number) => boolean,
  ) {
    this.lowered = opts.nice > 0;
  }

  /** Takes the largest backlog of the engine's retranslators (refreshed about every second). */
  update(backlog: number): void {
    if (!this.opts.nice || !this.opts.urgentBacklog) return;
    if (this.lowered && backlog > this.opts.urgentBacklog) {
      // where raising is not permitted the thread stays lowered: forwarding then catches up when the flood ends
      if (this.apply(0)) {
        this.lowered = false;
        this.raises++;
      }
    } else if (!this.lowered && backlog < this.opts.urgentBacklog / 2) {
      if (this.apply(this.opts.nice)) this.lowered = true;
    }
  }
}
