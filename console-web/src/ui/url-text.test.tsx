// URLs in narrow table columns: they wrap between their parts, never inside a word.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { UrlText, urlParts } from './url-text';

describe('UrlText', () => {
  it('offers a line break after each slash, dot, colon and query separator, keeping //, a leading /, IP addresses and words whole', () => {
    expect(urlParts('https://127.0.0.1:41871/hooks/unreachable')).toEqual(['https://', '127.0.0.1:', '41871/', 'hooks/', 'unreachable']);
    expect(urlParts('legacy-orders.eu-west-1.internal.example.com:8443')).toEqual(['legacy-orders.', 'eu-west-1.', 'internal.', 'example.', 'com:', '8443']);
    expect(urlParts('https://hooks.example.com/in?tenant=acme&x=1#top')).toEqual(['https://', 'hooks.', 'example.', 'com/', 'in?', 'tenant=', 'acme&', 'x=', '1#', 'top']);
    expect(urlParts('/v2/discovery:clusters')).toEqual(['/v2/', 'discovery:', 'clusters']);
    expect(urlParts('/billing/**')).toEqual(['/billing/', '**']);
    expect(urlParts('localhost')).toEqual(['localhost']);
  });

  it('reads as the whole URL: the break points are <wbr>, not characters', () => {
    const html = renderToStaticMarkup(<UrlText url="https://a.example/hook" />);
    expect(html).toBe('<span class="url-text">https://<wbr/>a.<wbr/>example/<wbr/>hook</span>');
    expect(html.replace(/<[^>]+>/g, '')).toBe('https://a.example/hook');
  });
});
