export interface RegisteredSecret { readonly label: string; readonly value: string }
export function serverSecrets(dataDir: string | undefined, tokenFile: string | undefined, encryptionFile?: string): RegisteredSecret[];
export function registerServerSecrets(captureDir: string, who: string, dataDir: string | undefined, tokenFile: string | undefined, encryptionFile?: string): void;
