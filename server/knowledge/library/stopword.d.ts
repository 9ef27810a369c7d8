// `stopword` ships no types; these are the lists this folder reads (each an array of lower-case words).
declare module 'stopword' {
  export const ara: string[];
  export const deu: string[];
  export const eng: string[];
  export const fra: string[];
  export const heb: string[];
  export const ita: string[];
  export const jpn: string[];
  export const nld: string[];
  export const pol: string[];
  export const por: string[];
  export const spa: string[];
  export const zho: string[];
}
