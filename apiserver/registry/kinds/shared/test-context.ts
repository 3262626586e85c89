/** A StrategyContext for the kinds' unit tests. */
import { naming } from '../../../naming/naming.js';
import type { StrategyContext } from '../../kind-strategy.js';

export const testContext = (
  domain = 'platform.io',
  namespace = 'default',
  subresource = '',
  operation: StrategyContext['operation'] = 'create',
): StrategyContext => ({
  naming: naming(domain),
  namespace,
  dryRun: false,
  subresource,
  operation,
});
