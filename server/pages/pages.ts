// The pages room's one entry: the filled pages, their language, the accent, security headers and static files.
export { ACCENT_FORMS, type AccentShades, readAccent } from './accent.ts';
export { frameAncestorAllows, refusedFrameNotice } from './frame-ancestors.ts';
export {
  fillPageHtml,
  fillPages,
  localizeLoader,
  pageTemplatesDir,
  prepareLoaders,
  prepareOwnerPage,
  preparePages,
  readPageTemplates,
} from './page-html.ts';
export { pageLanguage } from './page-language.ts';
export { precompressDir } from './precompress.ts';
export {
  DEFAULT_FRAME_ANCESTORS,
  frameAncestorSources,
  frameHeaders,
  headersForPath,
  parseSourceList,
  type SecurityOptions,
  securityHeaders,
} from './security-headers.ts';
export { PAGE_FILE, type PageOptions, serveClient } from './serve-client.ts';
