/**
 * The strategy of a CustomResourceDefinition's `spec.conversion` (Kubernetes' CRConverterFactory): `None`
 * (also when the member is absent, its default), or `Webhook` with `spec.conversion.webhook`. Validation
 * of the definition already refuses anything else; an unknown strategy still fails with upstream's text.
 */
import { ConversionError } from './conversion-error.js';
import { noneConverter, type CrConverter } from './custom-resource-converter.js';
import { webhookConverter, type WebhookConversion, type WebhookConverterOptions } from './webhook-converter.js';

export interface CustomResourceConversion {
  readonly strategy?: string;
  readonly webhook?: WebhookConversion;
}

export function converterFor(crdName: string, conversion: CustomResourceConversion | undefined, opts: WebhookConverterOptions = {}): CrConverter {
  const strategy = conversion?.strategy ?? 'None';
  if (strategy === 'None') return noneConverter;
  if (strategy === 'Webhook' && conversion?.webhook !== undefined) return webhookConverter(conversion.webhook, opts);
  throw new ConversionError(`unknown conversion strategy ${JSON.stringify(strategy)} for CRD ${crdName}`);
}
