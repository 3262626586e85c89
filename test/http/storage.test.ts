/**
 * The storage kinds over HTTP on both backends: `storage.<domain>/v1` StorageClass and VolumeAttachment
 * served (discovery with short names and the status sub-resource), each in one round trip through create
 * (defaults, status reset), Kubernetes' validation as a 422 Status with causes, the immutable fields, the
 * status sub-resource, kubectl's table, protobuf, and a delete that answers with the deleted object.
 */
import { backends, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const GROUP = 'storage.platform.io';
const BASE = `/apis/${GROUP}/v1`;

describeBackends(all, (b) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await b.start();
  });

  it('discovery lists storageclasses (sc) and volumeattachments with their status', async () => {
    const res = (await api.request('GET', BASE)).json();
    expect(res.resources.map((r: { name: string }) => r.name).sort()).toEqual(['storageclasses', 'volumeattachments', 'volumeattachments/status']);
    const byName = new Map(res.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('storageclasses')).toEqual(expect.objectContaining({ kind: 'StorageClass', namespaced: false, shortNames: ['sc'] }));
    expect(byName.get('volumeattachments')).toEqual(expect.objectContaining({ kind: 'VolumeAttachment', namespaced: false }));
  });

  it('StorageClass round trip: defaults, 422 causes, immutable fields, table with (default), delete answers the object', async () => {
    const name = uniqueName('sc');
    const path = `${BASE}/storageclasses`;
    const body = {
      apiVersion: `${GROUP}/v1`, kind: 'StorageClass',
      metadata: { name, annotations: { 'storageclass.platform.io/is-default-class': 'true' } },
      provisioner: 'csi.example.com', parameters: { type: 'ssd' },
    };
    const bad = await api.request('POST', path, { body: { ...body, provisioner: '', reclaimPolicy: 'Recycle' } });
    expect(bad.status).toBe(422);
    expect(bad.json().details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'provisioner' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"', field: 'reclaimPolicy' },
    ]);

    const created = await api.request('POST', path, { body });
    expect(created.status).toBe(201);
    const sc = created.json();
    expect([sc.reclaimPolicy, sc.volumeBindingMode]).toEqual(['Delete', 'Immediate']);

    const changed = await api.request('PUT', `${path}/${name}`, { body: { ...sc, parameters: { type: 'hdd' }, reclaimPolicy: 'Retain' } });
    expect(changed.status).toBe(422);
    expect(changed.json().details.causes.map((c: { field: string; reason: string }) => [c.field, c.reason])).toEqual([
      ['parameters', 'FieldValueForbidden'],
      ['reclaimPolicy', 'FieldValueForbidden'],
    ]);
    const expanded = await api.request('PUT', `${path}/${name}`, { body: { ...sc, allowVolumeExpansion: true } });
    expect(expanded.status).toBe(200);

    const table = (await api.request('GET', `${path}/${name}`, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    expect(table.rows[0].cells.slice(0, 5)).toEqual([`${name} (default)`, 'csi.example.com', 'Delete', 'Immediate', true]);

    const deleted = await api.request('DELETE', `${path}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'StorageClass', metadata: expect.objectContaining({ name }) }));
    expect((await api.request('GET', `${path}/${name}`)).status).toBe(404);
  });

  it('VolumeAttachment round trip: status reset on create, /status, immutable spec, table, protobuf, delete answers the object', async () => {
    const name = uniqueName('va');
    const path = `${BASE}/volumeattachments`;
    const spec = { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } };
    const body = { apiVersion: `${GROUP}/v1`, kind: 'VolumeAttachment', metadata: { name }, spec, status: { attached: true } };

    const bad = await api.request('POST', path, { body: { ...body, spec: { ...spec, nodeName: '', source: {} } } });
    expect(bad.status).toBe(422);
    expect(bad.json().details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName', field: 'spec.source' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.nodeName' },
    ]);

    const created = await api.request('POST', path, { body });
    expect(created.status).toBe(201);
    const va = created.json();
    expect(va.status).toEqual({ attached: false });

    const attached = await api.request('PUT', `${path}/${name}/status`, { body: { ...va, spec: { ...spec, nodeName: 'ignored' }, status: { attached: true, attachmentMetadata: { device: '/dev/sdb' } } } });
    expect(attached.status).toBe(200);
    expect(attached.json().status).toEqual({ attached: true, attachmentMetadata: { device: '/dev/sdb' } });
    expect(attached.json().spec).toEqual(spec);

    const moved = await api.request('PUT', `${path}/${name}`, { body: { ...attached.json(), spec: { ...spec, nodeName: 'node-2' } } });
    expect(moved.status).toBe(422);
    expect(moved.json().details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueInvalid', field: 'spec' })]);
    expect(moved.json().details.causes[0].message).toMatch(/field is immutable$/);

    const table = (await api.request('GET', path, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age']);
    expect(table.rows.map((r: { cells: unknown[] }) => r.cells.slice(0, 5))).toEqual([[name, 'csi.example.com', 'pv-1', 'node-1', true]]);

    const pb = await api.request('GET', `${path}/${name}`, { headers: { Accept: 'application/vnd.platform.protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe('application/vnd.platform.protobuf');
    expect(pb.raw.includes(Buffer.from('/dev/sdb'))).toBe(true);

    const deleted = await api.request('DELETE', `${path}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'VolumeAttachment', status: { attached: true, attachmentMetadata: { device: '/dev/sdb' } } }));
  });
});
