/**
 * The one place that prepares `@peculiar/x509`: it needs `reflect-metadata` loaded before it (its ASN.1
 * schemas use decorators) and a WebCrypto provider (Node's). Import x509 from here, never directly.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
export const subtle = webcrypto.subtle;
