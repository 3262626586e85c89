/**
 * Every Kubernetes CEL library of 1.32, for the environment builder (environment/) to assemble per server
 * version by each library's `since`. The standard library (operators, conversions, macros, optionals) is
 * the interpreter's; `authzSelectorsLibrary` is only added when the AuthorizeWithSelectors gate is on.
 */
import { authzLibrary, authzSelectorsLibrary } from './authz.js';
import { cidrLibrary } from './cidr.js';
import { formatLibrary } from './formats.js';
import { ipLibrary } from './ip.js';
import type { CelLibrary } from './library.js';
import { listsLibrary } from './lists.js';
import { quantityLibrary } from './quantity.js';
import { regexLibrary } from './regex.js';
import { setsLibrary } from './sets.js';
import { stringFormatLibrary } from './string-format.js';
import { stringsLibrary } from './strings.js';
import { urlsLibrary } from './urls.js';

export const KUBERNETES_LIBRARIES: readonly CelLibrary[] = [
  stringsLibrary,
  listsLibrary,
  regexLibrary,
  urlsLibrary,
  authzLibrary,
  quantityLibrary,
  stringFormatLibrary,
  setsLibrary,
  ipLibrary,
  cidrLibrary,
  formatLibrary,
];

export { authzSelectorsLibrary };
