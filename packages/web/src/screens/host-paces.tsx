import type { JobView } from '../api-types.gen';
import { num, seconds, TableBox } from '../ui';

/** Request starts per second, or "unlimited" (interval 0 and nothing slowed the host). */
export const rateText = (perSecond: number | null) => (perSecond === null ? 'unlimited' : `${perSecond}/s`);

/**
 * The busy hosts of a running job and each one's pace now (the job's `hosts`, busiest first, at most 10): the rate
 * its token bucket allows now against the settings' (an adaptive pace or a Retry-After lowers it), its requests in
 * flight and waiting, the pause left (docs/crawling.md).
 */
export function HostPaces({ catalog, hosts }: { catalog: string; hosts: JobView['hosts'] }) {
  if (hosts.length === 0) return null;
  return (
    <TableBox label="Busy hosts">
      <table>
        <caption class="sr-only">The hosts {catalog} is fetching from now, and each one's rate</caption>
        <thead>
          <tr>
            <th scope="col">Host</th>
            <th scope="col">Rate now</th>
            <th scope="col">Setting</th>
            <th scope="col">In flight</th>
            <th scope="col">Waiting</th>
            <th scope="col">Paused</th>
          </tr>
        </thead>
        <tbody>
          {hosts.map((h) => (
            <tr key={h.host}>
              <td>{h.host}</td>
              <td>{rateText(h.ratePerSecond)}</td>
              <td>{rateText(h.settingPerSecond)}</td>
              <td>{num(h.inFlight)}</td>
              <td>{num(h.queued)}</td>
              <td>{h.pausedForMs > 0 ? seconds(h.pausedForMs) : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}
