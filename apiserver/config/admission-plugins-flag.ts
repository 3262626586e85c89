/**
 * `--enable-admission-plugins`: admission plugins to run besides those on by default, by kube's plugin
 * names. The names of plugins this server always runs are accepted and change nothing (a kube-apiserver
 * command line that lists them keeps working); an unknown name is kube's error.
 */
import { FlagError } from './flag-error.js';
import { OWNER_REFERENCES_PERMISSION_ENFORCEMENT } from '../admission/plugins/owner-references-permission.js';

/** Off unless enabled (as in kube-apiserver). */
export const OPTIONAL_ADMISSION_PLUGINS: readonly string[] = [OWNER_REFERENCES_PERMISSION_ENFORCEMENT];

/** Always on here: NamespaceLifecycle, ServiceAccount, the certificate plugins and ValidatingAdmissionPolicy. */
const ALWAYS_ON = ['NamespaceLifecycle', 'ServiceAccount', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'ValidatingAdmissionPolicy'];

/** The optional plugins the flag's items enable; throws kube's error for an unknown name. */
export function parseEnabledAdmissionPlugins(items: readonly string[]): ReadonlySet<string> {
  const enabled = new Set<string>();
  for (const item of items) {
    if (OPTIONAL_ADMISSION_PLUGINS.includes(item)) enabled.add(item);
    else if (!ALWAYS_ON.includes(item)) throw new FlagError(`enable-admission-plugins plugin "${item}" is unknown`);
  }
  return enabled;
}
