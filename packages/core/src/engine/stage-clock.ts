/** The stages whose wall time a run reports (`CrawlResult.stages`), summed over concurrent pages. */
export const TIMED_STAGES = ['head', 'fetch', 'extract', 'import', 'dedup', 'images', 'output', 'commit'] as const;

export type TimedStage = (typeof TIMED_STAGES)[number];

/** Wall milliseconds per stage. */
export class StageClock {
  readonly #ms: Record<string, number> = Object.fromEntries(TIMED_STAGES.map((s) => [s, 0]));

  /** Time `work` under `stage`, whether it resolves or rejects. */
  time<T>(stage: TimedStage, work: Promise<T>): Promise<T> {
    const started = performance.now();
    return work.finally(() => this.add(stage, performance.now() - started));
  }

  add(stage: TimedStage, ms: number): void {
    this.#ms[stage] = (this.#ms[stage] ?? 0) + ms;
  }

  /** Whole milliseconds per stage. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.#ms).map(([k, v]) => [k, Math.round(v)]));
  }
}
