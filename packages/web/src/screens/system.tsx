import { get } from '../api';
import type { ApiAnswers, Catalog, NodeView, Storage, System } from '../api-types.gen';
import { bytes, ErrorLine, Loading, num, ScreenTitle, seconds, TableBox, useLoad } from '../ui';

/** This node, what each store holds and its size, and the settings (secrets masked by the API). */
export function SystemScreen() {
  const node = useLoad('node', (s) => get<NodeView>('/v2/node', s));
  const storage = useLoad('storage', (s) => get<Storage>('/v2/storage', s));
  const system = useLoad('system', (s) => get<System>('/v2/system', s));
  const settings = useLoad('settings', (s) => get<ApiAnswers['GET /v2/settings']>('/v2/settings', s));
  const catalogs = useLoad('catalogs', (s) => get<Catalog[]>('/v2/catalog', s));
  const nameOf = (id: string) => catalogs.data?.find((c) => c.id === id)?.name ?? id;

  return (
    <section>
      <ScreenTitle>System</ScreenTitle>
      <h2>Node</h2>
      <ErrorLine error={node.error} />
      {node.data ? (
        <dl class="facts">
          {(
            [
              ['Node', node.data.node],
              ['Host', node.data.host],
              ['Greenfinger', node.data.version],
              ['Node.js', node.data.nodeVersion],
              ['Up for', seconds(node.data.uptimeSeconds * 1000)],
              ['CPUs', node.data.cpus],
              ['Load (1, 5, 15 min)', node.data.loadAverage.map((l) => l.toFixed(2)).join(', ')],
              ['Memory in use', `${bytes(node.data.memory.rss)} of ${bytes(node.data.memory.total)}`],
              ['Heap', `${bytes(node.data.memory.heapUsed)} of ${bytes(node.data.memory.heapTotal)}`],
              ['Jobs running', node.data.jobs],
            ] as Array<[string, string | number]>
          ).map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      ) : node.loading ? (
        <Loading what="Reading the node" />
      ) : null}

      <h2>Stores</h2>
      <ErrorLine error={system.error} />
      {system.data ? <StoresInUse system={system.data} /> : null}
      <ErrorLine error={storage.error} />
      {storage.loading && !storage.data ? <Loading what="Measuring the stores (this walks the data folder)" /> : null}
      {storage.data ? (
        <>
          <dl class="facts">
            <div>
              <dt>Data root</dt>
              <dd>{storage.data.dataRoot}</dd>
            </div>
            <div>
              <dt>Database</dt>
              <dd>{storage.data.database.kind}</dd>
            </div>
            <div>
              <dt>Pages and pictures</dt>
              <dd>{bytes(storage.data.files.bytes)}</dd>
            </div>
            <div>
              <dt>System files</dt>
              <dd>{bytes(storage.data.system.bytes)}</dd>
            </div>
            <div>
              <dt>Full-text index ({storage.data.index.name})</dt>
              <dd>{bytes(storage.data.index.bytes)}</dd>
            </div>
            <div>
              <dt>Vectors ({storage.data.vectors.name})</dt>
              <dd>{bytes(storage.data.vectors.bytes)}</dd>
            </div>
          </dl>
          <TableBox label="Index per catalog">
            <table>
              <caption>Full-text index per catalog</caption>
              <thead>
                <tr>
                  <th scope="col">Catalog</th>
                  <th scope="col">Versions (documents)</th>
                  <th scope="col">Documents</th>
                  <th scope="col">Size</th>
                </tr>
              </thead>
              <tbody>
                {storage.data.index.catalogs.map((c) => (
                  <tr key={c.catalogId}>
                    <td>{nameOf(c.catalogId)}</td>
                    <td>{c.versions.map((v) => `v${v.version} (${num(v.documents)})`).join(', ')}</td>
                    <td>{num(c.documents)}</td>
                    <td>{bytes(c.bytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
          <TableBox label="Vector collections">
            <table>
              <caption>Vector collections</caption>
              <thead>
                <tr>
                  <th scope="col">Collection</th>
                  <th scope="col">Dimensions</th>
                  <th scope="col">Points</th>
                  <th scope="col">Size</th>
                </tr>
              </thead>
              <tbody>
                {storage.data.vectors.collections.map((c) => (
                  <tr key={c.collection}>
                    <td>{c.collection}</td>
                    <td>{c.dims}</td>
                    <td>{num(c.points)}</td>
                    <td>{bytes(c.bytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
        </>
      ) : null}

      <h2>Settings</h2>
      <p class="muted">This node's settings as the API reports them; secrets are masked.</p>
      <ErrorLine error={settings.error} />
      {settings.data ? (
        <TableBox label="Settings">
          <table class="settings">
            <caption class="sr-only">Settings</caption>
            <thead>
              <tr>
                <th scope="col">Setting</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(settings.data).map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td>{typeof v === 'string' ? v || '—' : JSON.stringify(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      ) : null}
    </section>
  );
}

/** Which store each layer uses, and whether a cluster copies it to every member or shares one (GET /v2/system). */
function StoresInUse({ system }: { system: System }) {
  const p = system.providers;
  const e = p.embeddings;
  const rows: Array<[string, string, string]> = [
    ['Records', p.records.provider, system.cluster.records],
    ['Full-text index', p.index.provider, system.cluster.index],
    ['Vectors', `${p.vectors.provider} (${p.vectors.collection}_{width})`, system.cluster.vectors],
    ['Pages and pictures', p.files.provider, system.cluster.files],
    ['Embeddings', `${e.provider}: ${e.model || 'default model'}${e.dims ? `, ${e.dims} dimensions` : ''}`, '—'],
  ];
  return (
    <TableBox label="Stores in use">
      <table>
        <caption>Stores in use</caption>
        <thead>
          <tr>
            <th scope="col">Layer</th>
            <th scope="col">Provider</th>
            <th scope="col">In a cluster</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([layer, provider, cluster]) => (
            <tr key={layer}>
              <th scope="row">{layer}</th>
              <td>{provider}</td>
              <td>{cluster}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}
