/// <reference types="vite/client" />

// The page's settings, by the one list of names (contract/settings.ts).
interface ImportMetaEnv extends Readonly<Partial<Record<import('../contract/settings').PageSettingName, string>>> {}

declare module 'virtual:chakra-tokens' {
  /** Chakra's default tokens that the card uses (build/chakra-theme.ts). */
  export const cardTokens: ReturnType<typeof import('../build/chakra-theme').cardTokens>;
}
