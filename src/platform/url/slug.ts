/** URL slug from a headline: lower-case ASCII words joined by '-', at most 80 characters. */
export function slugify(headline: string): string {
  const s = headline
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
  return s || 'article';
}
