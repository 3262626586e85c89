/**
 * Which form of `/openapi/v2` an Accept header asks for, by kube-openapi's rule: clauses sorted by q (higher
 * first), then concrete types before wildcards (`application/x` before `application/*` before `*` / `*`),
 * the header's order among equals; the first clause that matches JSON, the deprecated protobuf name or the
 * protobuf name (tried in that order, so `*` / `*` and `application/*` mean JSON) decides. Media type
 * parameters other than `q` are ignored. An absent or empty header is `*` / `*`. A clause with `q=0` is
 * skipped (it says "not acceptable").
 */
import { openapiV2ProtobufType, openapiV2ProtobufTypeDeprecated } from './openapi-v2-protobuf.js';

export type OpenAPIV2Form = 'json' | 'protobuf';

interface Clause {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

const offered: readonly { readonly type: string; readonly subtype: string; readonly form: OpenAPIV2Form }[] = [
  { type: 'application', subtype: 'json', form: 'json' },
  { type: 'application', subtype: openapiV2ProtobufTypeDeprecated.slice('application/'.length), form: 'protobuf' },
  { type: 'application', subtype: openapiV2ProtobufType.slice('application/'.length), form: 'protobuf' },
];

/** The media types `/openapi/v2` serves, for a 406's message. */
export const openapiV2MediaTypes: readonly string[] = ['application/json', openapiV2ProtobufType, openapiV2ProtobufTypeDeprecated];

function clauses(header: string): Clause[] {
  const out: Clause[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type = '', subtype = '*'] = range.trim().toLowerCase().split('/');
    if (type === '') continue;
    let q = 1;
    for (const p of params) {
      const [k = '', v = ''] = p.split('=');
      if (k.trim().toLowerCase() === 'q') q = Number.isFinite(Number(v.trim())) ? Number(v.trim()) : 0;
    }
    out.push({ type, subtype: subtype.trim(), q });
  }
  const specificity = (c: Clause): number => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  // Array.prototype.sort is stable: equals keep the header's order.
  return out.sort((a, b) => b.q - a.q || specificity(b) - specificity(a));
}

/** The form to serve, or undefined when nothing offered is acceptable (406). */
export function chooseOpenAPIV2Form(accept: string | undefined): OpenAPIV2Form | undefined {
  for (const c of clauses(accept === undefined || accept.trim() === '' ? '*/*' : accept)) {
    if (c.q <= 0) continue;
    for (const o of offered) {
      if ((c.type === o.type || c.type === '*') && (c.subtype === o.subtype || c.subtype === '*')) return o.form;
    }
  }
  return undefined;
}
