import { encodePriority } from './frontier-keys.js';
import { FRONT_QUEUES } from './prioritizer.js';

/**
 * Lanes of the frontier: lane 0 holds what goes first (start urls, redirect targets and canonical urls: priority
 * below 1), lanes 1 … FRONT_QUEUES the front queues 0 … FRONT_QUEUES − 1 (priority 1 + queue and up; anything from
 * FRONT_QUEUES on, e.g. the depth-numbered entries of a frontier written before the front queues, goes to the last).
 */
export const LANES = FRONT_QUEUES + 1;

/** The lane of a frontier priority (lower is sooner). */
export function laneOf(priority: number): number {
  if (!(priority >= 1)) return 0;
  return Math.min(FRONT_QUEUES, Math.floor(priority));
}

/**
 * The key range `[gte, lt)` of one lane in the LevelDB frontier's `f:` keys: the queue position starts with the
 * priority, encoded to sort as the number does, so a lane is one contiguous range.
 */
export function laneRange(lane: number): { gte: string; lt: string } {
  return {
    gte: lane === 0 ? 'f:' : `f:${encodePriority(lane)}`,
    lt: lane >= FRONT_QUEUES ? 'f;' : `f:${encodePriority(lane + 1)}`,
  };
}

/** How many times more often a front queue is served than the one below it. */
export const QUEUE_BIAS = 3;

/** The bias: front queue q is served 3^(FRONT_QUEUES − 1 − q) times for each time the last one is. */
export function queueWeight(queue: number): number {
  return QUEUE_BIAS ** (FRONT_QUEUES - 1 - queue);
}

/**
 * The front-queue selector (seed 003): lane 0 whenever it holds anything; else a smooth weighted round robin over
 * the front queues holding urls, each weighted by {@link queueWeight}. Over any run of polls while a set of queues
 * stays non-empty, queue q gets its weight's share of them, within one poll: each queue three times as many as the
 * one below it (queue 0 two thirds of all polls when every queue is busy, the last one 1 in 3,280), and a queue
 * alone with the last is served 3^(7 − q) times for each of the last's — the best pages come first and no queue
 * starves. Deterministic: the same
 * frontier polls in the same order. The credits live in memory; a resumed run starts them afresh.
 */
export class BiasedSelector {
  readonly #credit = new Float64Array(LANES);

  /**
   * The lane to take the next url from, among those `holds` says hold urls; undefined when none does.
   * @param holds whether a lane (0 … LANES − 1) holds urls now
   */
  pick(holds: (lane: number) => boolean): number | undefined {
    if (holds(0)) return 0;
    let total = 0;
    let best = -1;
    for (let lane = 1; lane < LANES; lane++) {
      if (!holds(lane)) {
        this.#credit[lane] = 0;
        continue;
      }
      const w = queueWeight(lane - 1);
      this.#credit[lane] = (this.#credit[lane] as number) + w;
      total += w;
      if (best < 0 || (this.#credit[lane] as number) > (this.#credit[best] as number)) best = lane;
    }
    if (best < 0) return undefined;
    this.#credit[best] = (this.#credit[best] as number) - total;
    return best;
  }

  /** Forget the credits (the frontier was cleared or recovered). */
  reset(): void {
    this.#credit.fill(0);
  }
}
