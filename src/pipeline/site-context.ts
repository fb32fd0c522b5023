// The settings every renderer of a build shares (SiteContext), from the resolved configuration.

import type { ResolvedConfig } from '../config/resolve.js';
import type { SiteContext } from '../model.js';
import { clockAt } from '../render/clock.js';
import { VERSION } from '../version.js';

/** The settings every renderer of this build shares, with a clock at `now`. */
export function siteContext(config: ResolvedConfig, timeZone: string, now: number): SiteContext {
  return {
    siteUrl: config.siteUrl,
    title: config.title,
    locale: config.locales[0]!,
    locales: config.locales,
    ...(config.logo !== undefined ? { logo: config.logo } : {}),
    ...(config.primaryColor !== undefined ? { primaryColor: config.primaryColor } : {}),
    ...(config.headerLinks.length > 0 ? { headerLinks: config.headerLinks } : {}),
    ...(config.footerLinks.length > 0 ? { footerLinks: config.footerLinks } : {}),
    timeZone,
    clock: clockAt(now),
    feedLimit: config.feedLimit,
    icalPastDays: config.icalPastDays,
    refreshMinutes: config.refreshMinutes,
    version: VERSION,
  };
}
