import { createLoader, ZipRangeReader } from '@webrecorder/wabac';

/** A WACZ opened the way ReplayWeb.page opens one: webrecorder's ZipRangeReader over its bytes. */
export interface WaczReader {
  /** The names of its entries. */
  names(): Promise<string[]>;
  /** One entry's bytes as stored. */
  file(name: string): Promise<Buffer>;
  text(name: string): Promise<string>;
}

/** Open a WACZ held in memory (a test's small export) with wabac's zip reader. */
export async function openWacz(bytes: Uint8Array): Promise<WaczReader> {
  const zip = new ZipRangeReader(await createLoader({ url: 'export.wacz', extra: { arrayBuffer: bytes } }));
  const file = async (name: string) => Buffer.from(await (await zip.loadFile(name)).reader.readFully());
  return {
    names: async () => Object.keys(await zip.load()),
    file,
    text: async (name) => (await file(name)).toString('utf8'),
  };
}
