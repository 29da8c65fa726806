import type { Catalog, OrphanReport, PublishWithheld, RunReport } from '../model.js';
import { orphansLine } from './orphans.js';
import { layerGaps } from './publish-decision.js';

/**
 * The ending of a run's report, said in its note: the orphans a run removed when nothing else changed, why the
 * publish was withheld (its line replaces the note), and the layers that hold fewer pages than were saved.
 */
export function noteEnding(
  report: RunReport,
  run: { catalog: Catalog; version: number; orphaned: OrphanReport | undefined; withheld: PublishWithheld | undefined },
): void {
  const { orphaned, withheld, version } = run;
  if (orphaned) report.orphans = orphaned;
  const removed = orphaned ? orphaned.deleted + orphaned.gone : 0;
  if (removed > 0 && report.ending.note === `nothing changed since v${version}`) {
    report.ending.note = `nothing new or changed since v${version}; ${removed} page${removed === 1 ? '' : 's'} removed — ${orphansLine(orphaned)}`;
  }
  if (withheld) {
    report.ending.withheld = withheld;
    report.ending.note = withheld.line;
  }
  const gaps = layerGaps(run.catalog, report);
  if (gaps.length > 0) {
    report.ending.gaps = gaps;
    const said = gaps.map((g) => `${g.layer} holds ${g.held} of ${g.saved} saved pages (${g.why})`).join('; ');
    report.ending.note = `${report.ending.note ?? ''}; ${said}`;
  }
}

/** Words search was published when the fetch ended, and the run then stopped before its vectors were all written. */
export function noteVectorsLeft(
  report: RunReport,
  version: number,
  state: { pages: number; embedded: number; complete: number },
): void {
  report.ending.note =
    `${report.ending.note ?? ''}; words search reads v${version} (published when the fetch ended); its vectors ` +
    `stopped at ${state.embedded} of ${state.pages} pages (${state.complete} complete) — run resume to write the ` +
    'rest (it fetches nothing)';
}
