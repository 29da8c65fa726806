import type { Logger } from 'pino';
import { errorMessage, StageError } from '../errors.js';
import type { OutputLayer } from '../model.js';
import type { CrawledPage, OutputChannel } from './output-channel.js';

export interface ChannelStats {
  written: number;
  failed: number;
  lastError?: string;
}

const ORDER: OutputLayer[] = ['file', 'index', 'vector'];

/**
 * Runs the channels in the fixed order file → index → vector. The file layer must succeed (its failure is the
 * page's failure); an index or vector failure is counted, logged and reported at the end, and never fails the crawl,
 * because what it missed can be replayed from the files.
 */
export class CompositeOutputChannel {
  readonly channels: OutputChannel[];
  readonly #errors: Record<string, ChannelStats> = {};
  readonly #log: Logger;

  constructor(channels: OutputChannel[], log: Logger) {
    const byLayer = new Map(channels.map((c) => [c.layer, c]));
    if (!byLayer.has('file')) throw new StageError('output', 'the file channel is always on and must be configured');
    this.channels = ORDER.flatMap((layer) => (byLayer.has(layer) ? [byLayer.get(layer) as OutputChannel] : []));
    for (const c of this.channels) this.#errors[c.layer] = { written: 0, failed: 0 };
    this.#log = log;
  }

  get layers(): OutputLayer[] {
    return this.channels.map((c) => c.layer);
  }

  /** Throws StageError only when the file layer fails. */
  async write(page: CrawledPage): Promise<void> {
    for (const channel of this.channels) {
      const stats = this.#errors[channel.layer] as ChannelStats;
      try {
        await channel.write(page);
      } catch (err) {
        stats.failed++;
        stats.lastError = errorMessage(err);
        if (channel.layer === 'file') throw new StageError('file', `cannot write ${page.resource.url}`, err);
        this.#log.warn(
          { err, layer: channel.layer, url: page.resource.url },
          'output channel failed; replay can fill it',
        );
      }
    }
  }

  /** Flush in order; failures of non-file layers are recorded, not thrown. */
  async flush(): Promise<void> {
    for (const channel of this.channels) {
      try {
        await channel.flush();
      } catch (err) {
        const stats = this.#errors[channel.layer] as ChannelStats;
        stats.failed++;
        stats.lastError = errorMessage(err);
        if (channel.layer === 'file') throw new StageError('file', 'flush failed', err);
        this.#log.warn({ err, layer: channel.layer }, 'output flush failed; replay can fill it');
      }
    }
  }

  /** Told when a later-writing layer (index, vector) made a page durable or failed it. */
  onDurable(listener: (layer: OutputLayer, resourceId: string, ok: boolean) => void): void {
    for (const channel of this.channels) channel.setDurableListener?.((id, ok) => listener(channel.layer, id, ok));
  }

  /** The layers that report durability later than write() (see OutputChannel.setDurableListener). */
  get deferredLayers(): OutputLayer[] {
    return this.channels.filter((c) => c.setDurableListener !== undefined).map((c) => c.layer);
  }

  /** The channel of one layer (replay and repair write to one layer only). */
  channel(layer: OutputLayer): OutputChannel | undefined {
    return this.channels.find((c) => c.layer === layer);
  }

  /** Per layer: pages made durable, and failures (the channel's own plus those caught here). */
  stats(): Record<string, ChannelStats> {
    const out: Record<string, ChannelStats> = {};
    for (const channel of this.channels) {
      const own = channel.counts();
      const caught = this.#errors[channel.layer] as ChannelStats;
      const lastError = caught.lastError ?? own.lastError;
      out[channel.layer] = {
        written: own.written,
        failed: own.failed + caught.failed,
        ...(lastError ? { lastError } : {}),
      };
    }
    return out;
  }

  async close(): Promise<void> {
    for (const channel of [...this.channels].reverse()) await channel.close();
  }
}
