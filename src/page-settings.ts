import { createContext, useContext } from 'react';
import { DEFAULT_PAGE_SETTINGS, PAGE_SETTINGS_ID, type PageSettings } from '../contract/page-settings';
import { t } from './text';

/**
 * The page's settings as the server wrote them into the served HTML (server/page-html.ts); a page without the block
 * (no configuration) has the spec's.
 */
export function readPageSettings(doc: Document): PageSettings {
  const text = doc.getElementById(PAGE_SETTINGS_ID)?.textContent;
  return text ? { ...DEFAULT_PAGE_SETTINGS, ...(JSON.parse(text) as Partial<PageSettings>) } : DEFAULT_PAGE_SETTINGS;
}

/** The site's title for the card, given by the app to the card's heading; unset, the language's own. */
export const PageTitleContext = createContext<string | undefined>(undefined);

export const usePageTitle = () => useContext(PageTitleContext) ?? t('title');
