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

function isLayer(name: string): name is OutputLayer {
  return (ORDER as string[]).includes(name);
}

/**
 * Runs the channels in the fixed order file → index → vector, then the extra channels in the order given. The file
 * layer must succeed (its failure is the page's failure); any other failure is counted, logged and reported at the
 * end, and never fails the crawl, because what it missed can be replayed from the files. Only the built-in layers
 * report durability later than write() (extra channels are done when write() returns).
 */
export class CompositeOutputChannel {
  readonly channels: OutputChannel[];
  readonly #errors: Record<string, ChannelStats> = {};
  readonly #log: Logger;

  constructor(channels: OutputChannel[], log: Logger) {
    const byLayer = new Map(channels.map((c) => [c.layer, c]));
    if (!byLayer.has('file')) throw new StageError('output', 'the file channel is always on and must be configured');
    if (byLayer.size !== channels.length) {
      throw new StageError(
        'output',
        `two output channels share a layer name: ${channels.map((c) => c.layer).join(', ')}`,
      );
    }
    const extras = channels.filter((c) => !isLayer(c.layer));
    this.channels = [
      ...ORDER.flatMap((layer) => (byLayer.has(layer) ? [byLayer.get(layer) as OutputChannel] : [])),
      ...extras,
    ];
    for (const c of this.channels) this.#errors[c.layer] = { written: 0, failed: 0 };
    this.#log = log;
  }

  get layers(): string[] {
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

  /**
   * Flush in order; failures of non-file layers are recorded, not thrown. `layers` narrows it to some channels (a run
   * flushes file and index before it waits for the vectors).
   */
  async flush(layers?: (layer: string) => boolean): Promise<void> {
    for (const channel of this.channels) {
      if (layers && !layers(channel.layer)) continue;
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
    for (const channel of this.channels) {
      const layer = channel.layer;
      if (isLayer(layer)) channel.setDurableListener?.((id, ok) => listener(layer, id, ok));
    }
  }

  /** The layers that report durability later than write() (see OutputChannel.setDurableListener). */
  get deferredLayers(): OutputLayer[] {
    return this.channels.flatMap((c) => (c.setDurableListener !== undefined && isLayer(c.layer) ? [c.layer] : []));
  }

  /**
   * The run is stopping: the layer stops writing what it still queues (those pages stay owed, see
   * OutputChannel.abandon); a layer without `abandon` is flushed instead.
   */
  async abandon(layer: OutputLayer): Promise<void> {
    const channel = this.channel(layer);
    if (!channel) return;
    if (channel.abandon) await channel.abandon();
    else await this.flush((l) => l === layer);
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
