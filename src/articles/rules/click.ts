/**
 * Which requests to /news/:id/click count as a reader's click. Pure. The redirect happens either way;
 * a click counts when the article is approved and the request is a GET from a browser-like user agent.
 */

/** Link-preview fetchers, crawlers and scripted clients: their requests to /click are redirected but not counted. */
const NON_HUMAN_AGENT =
  /bot|crawl|spider|slurp|preview|facebookexternalhit|embedly|whatsapp|telegram|discord|slack|skype|headless|lighthouse|curl|wget|python|httpclient|go-http-client|okhttp|node-fetch|undici|axios|java\//i;

export function countsAsClick(req: { method: string; userAgent: string | undefined }, articleStatus: string): boolean {
  return req.method === 'GET' && articleStatus === 'approved' && Boolean(req.userAgent) && !NON_HUMAN_AGENT.test(req.userAgent!);
}
