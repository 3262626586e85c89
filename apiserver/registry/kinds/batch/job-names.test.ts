import { naming } from '../../../naming/naming.js';
import { jobControllerName, jobLabels, jobPodAnnotations } from './job-names.js';

test.each([
  ['platform.io', 'batch.platform.io', 'platform.io/job-controller'],
  ['k8s.io', 'batch.kubernetes.io', 'kubernetes.io/job-controller'],
  ['example.org', 'batch.example.org', 'example.org/job-controller'],
])('under --group-domain=%s the batch names are %s/... and the controller is %s', (domain, prefix, controller) => {
  const n = naming(domain);
  expect(jobLabels(n)).toEqual({ controllerUid: `${prefix}/controller-uid`, jobName: `${prefix}/job-name` });
  expect(jobPodAnnotations(n)).toEqual({ completionIndex: `${prefix}/job-completion-index`, indexFailureCount: `${prefix}/job-index-failure-count` });
  expect(jobControllerName(n)).toBe(controller);
});
