/** `UserInfo` of authentication/v1 (SelfSubjectReview, TokenReview), and its value for a server user. */
import type { UserInfo } from '../../../auth/user-info.js';
import type { Schema } from '../../../schema/schema.js';
import { atomicList, obj, str } from '../shared/schema-builders.js';

export const userInfoSchema: Schema = obj(
  'Who a user is, as the authenticators resolved them.',
  {
    username: str('The name that uniquely identifies the user among all active users.'),
    uid: str('A value that identifies the user across time: a deleted and re-created user gets another.'),
    groups: atomicList({ type: 'string', default: '' }, 'The groups the user belongs to.'),
    extra: {
      type: 'object',
      description: 'Further information the authenticator provided.',
      additionalProperties: atomicList({ type: 'string', default: '' }, 'Values of one key.'),
    },
  },
  undefined,
  { protobuf: { username: 1, uid: 2, groups: 3, extra: 4 } },
);

/** The JSON of a user as the reviews report it (Go's omitempty: empty fields are left out). */
export function userInfoValue(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (user.name !== '') out.username = user.name;
  if (user.uid !== '') out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  const extra = user.extra ?? {};
  if (Object.keys(extra).length > 0) out.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [...v]]));
  return out;
}
