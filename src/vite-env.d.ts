/// <reference types="vite/client" />

// The page's settings, by the one list of names (contract/settings.ts).
interface ImportMetaEnv extends Readonly<Partial<Record<import('../contract/settings').PageSettingName, string>>> {}

declare module 'virtual:chakra-theme' {
  /** Chakra's default tokens, text styles and recipes, as much of them as the card uses (build/chakra-theme.ts). */
  export const cardTokens: ReturnType<typeof import('../build/chakra-theme').cardTokens>;
  export const cardTextStyles: ReturnType<typeof import('../build/chakra-theme').cardTextStyles>;
  export const cardRecipes: ReturnType<typeof import('../build/chakra-theme').cardRecipes>;
}
