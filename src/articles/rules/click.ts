/**
 * Which requests to /news/:id/click count as a reader's click. Pure. The redirect happens either way;
 * a click counts when the article is approved and the request is a GET from a browser-like user agent.
 */

/** Link-preview fetchers, crawlers and scripted clients: their requests to /click are redirected but not counted. */
const NON_HUMAN_AGENT =
  /bot|crawl|spider|slurp|preview|facebookexternalhit|embedly|whatsapp|telegram|discord|slack|skype|headless|lighthouse|curl|wget|python|httpclient|go-http-client|okhttp|node-fetch|undici|axios|java\//i;

const fromBrowser = (req: { method: string; userAgent: string | undefined }) => req.method === 'GET' && Boolean(req.userAgent) && !NON_HUMAN_AGENT.test(req.userAgent!);

export function countsAsClick(req: { method: string; userAgent: string | undefined }, articleStatus: string): boolean {
  return articleStatus === 'approved' && fromBrowser(req);
}

/**
 * Whether a signed-in caller's request to /click records them as a reader of the article (the
 * click-through the credibility rules look for before a vote): a GET from a browser-like user agent,
 * whatever the article's status (submitted articles take votes too).
 */
export function opensAsReader(req: { method: string; userAgent: string | undefined; userId: number | undefined }): boolean {
  return req.userId !== undefined && fromBrowser(req);
}
