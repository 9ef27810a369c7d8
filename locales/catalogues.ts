import { ar } from './ar.ts';
import type { Catalogue } from './catalogue.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { he } from './he.ts';
import { it } from './it.ts';
import { ja } from './ja.ts';
import type { Language } from './languages.ts';
import { nl } from './nl.ts';
import { pl } from './pl.ts';
import { ptBR } from './pt-br.ts';
import { zhCN } from './zh-cn.ts';

/** Every catalogue, for the build (which renders the card in each) and the tests; the page gets only its own. */
export const CATALOGUES: Record<Language, Catalogue> = {
  en,
  de,
  fr,
  es,
  it,
  'pt-BR': ptBR,
  nl,
  pl,
  ja,
  'zh-CN': zhCN,
  ar,
  he,
};
