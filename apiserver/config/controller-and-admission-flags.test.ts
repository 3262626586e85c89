/** `--controllers` in kube-controller-manager's syntax, and `--enable-admission-plugins`. */
import { controllerEnabled, parseControllers } from './controllers-flag.js';
import { parseEnabledAdmissionPlugins } from './admission-plugins-flag.js';
import { FlagError } from './flag-error.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig } from './server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

test('* is every default controller; names and aliases turn one on or off', () => {
  const all = parseControllers(['*']);
  expect(controllerEnabled(all, 'job-controller')).toBe(true);
  expect(controllerEnabled(all, 'token-cleaner-controller')).toBe(false);
  expect(controllerEnabled(all, 'token-cleaner-controller', { 'token-cleaner-controller': true })).toBe(true);

  const withCleaner = parseControllers(['*', 'tokencleaner']);
  expect(controllerEnabled(withCleaner, 'token-cleaner-controller')).toBe(true);

  const withoutJobs = parseControllers(['*', '-job', '-ttl-after-finished-controller']);
  expect(controllerEnabled(withoutJobs, 'job-controller')).toBe(false);
  expect(controllerEnabled(withoutJobs, 'ttl-after-finished-controller')).toBe(false);
  expect(controllerEnabled(withoutJobs, 'garbage-collector-controller')).toBe(true);

  const only = parseControllers(['garbagecollector']);
  expect(controllerEnabled(only, 'garbage-collector-controller')).toBe(true);
  expect(controllerEnabled(only, 'namespace-controller')).toBe(false);
  // A disabled name wins over an enabled one, whatever the order.
  expect(controllerEnabled(parseControllers(['-job', 'job']), 'job-controller')).toBe(false);
});

test('an unknown name is refused with kube\'s message', () => {
  expect(() => parseControllers(['*', 'deployment-typo'])).toThrow(
    'invalid value "*,deployment-typo" for flag --controllers: "deployment-typo" is not in the list of known controllers',
  );
  expect(() => parseControllers(['-nope'])).toThrow(/"-nope" is not in the list of known controllers/);
});

test('--enable-admission-plugins turns on the optional plugin, accepts the always-on names, refuses unknown ones', () => {
  expect([...parseEnabledAdmissionPlugins(['NamespaceLifecycle', 'OwnerReferencesPermissionEnforcement', 'ServiceAccount'])]).toEqual(['OwnerReferencesPermissionEnforcement']);
  expect(parseEnabledAdmissionPlugins([]).size).toBe(0);
  expect(() => parseEnabledAdmissionPlugins(['AlwaysPullImages'])).toThrow('enable-admission-plugins plugin "AlwaysPullImages" is unknown');
});

test('both flags reach the server configuration; bad names stop the start', () => {
  const dflt = config();
  expect(controllerEnabled(dflt.controllers!, 'garbage-collector-controller')).toBe(true);
  expect(dflt.enabledAdmissionPlugins?.size).toBe(0);
  const set = config('--controllers=*,-job', '--enable-admission-plugins=OwnerReferencesPermissionEnforcement');
  expect(controllerEnabled(set.controllers!, 'job-controller')).toBe(false);
  expect(controllerEnabled(set.controllers!, 'statefulset-controller')).toBe(true);
  expect([...set.enabledAdmissionPlugins!]).toEqual(['OwnerReferencesPermissionEnforcement']);
  expect(() => config('--controllers=nope')).toThrow(FlagError);
  expect(() => config('--enable-admission-plugins=Nope')).toThrow(FlagError);
});
