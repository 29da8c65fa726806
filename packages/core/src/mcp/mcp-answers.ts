import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CrawlerError, errorMessage } from '../errors.js';

/** Who calls the tools: an API token's user on `/mcp`, the operator on stdio. */
export interface McpCaller {
  name: string;
  role: 'admin' | 'support';
}

/** A tool's answer: the text a model reads, and the same facts as structured content. */
export function answer(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A tool's refusal as one line (the SDK sends it with `isError`), core's fix included. */
export function refusal(err: unknown): CallToolResult {
  const line = err instanceof CrawlerError ? err.toLine() : errorMessage(err);
  return { content: [{ type: 'text', text: line }], isError: true };
}

/** Run a tool's body; a thrown error becomes its refusal. */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    return refusal(err);
  }
}

/** Admin tools refuse every other role, with the line the REST API uses. */
export function requireAdmin(caller: McpCaller, tool: string): void {
  if (caller.role !== 'admin') {
    throw new CrawlerError(
      'BAD_INPUT',
      `${tool}: user "${caller.name}" has the support role, which may read but not change anything: use an admin's token`,
    );
  }
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** A search highlight (escaped html with `<em>` around matches) as plain text with the matches in bold. */
export function passageOf(highlight: string): string {
  return highlight
    .replace(/<\/?em>/g, '**')
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e)
    .replace(/\s+/g, ' ')
    .trim();
}

/** A catalog named by id (a UUID) or by name. */
export function catalogRef(value: string): { id: string } | { name: string } {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(value) ? { id: value } : { name: value };
}
