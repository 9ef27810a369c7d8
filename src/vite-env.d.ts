/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_LLM_BASE_URL?: string;
  readonly VITE_LLM_MODEL?: string;
  readonly VITE_LLM_API_KEY?: string;
  readonly VITE_LLM_TIMEOUT_MS?: string;
  readonly VITE_LLM_SLOW_MS?: string;
  readonly VITE_LLM_STREAM?: string;
}

declare module 'virtual:chakra-tokens' {
  /** Chakra's default tokens that the card uses (build/chakra-tokens.ts). */
  export const cardTokens: ReturnType<typeof import('../build/chakra-tokens').cardTokens>;
}
