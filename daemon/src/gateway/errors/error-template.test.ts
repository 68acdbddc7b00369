import { describe, expect, it } from 'vitest';
import { DEFAULT_HTML_TEMPLATE, parseErrorTemplate } from './error-template.js';

const values = { http_status: 404, message: 'route not found error', path: '/a/<b>"c"', request_id: 'id&1' };

describe('error templates', () => {
  it('substitutes the four variables, escaped for JSON or HTML', () => {
    expect(parseErrorTemplate('{"p":"{{.path}}","s":{{ .http_status }},"id":"{{.request_id}}"}', 'json', 't.json').render(values)).toBe(
      '{"p":"/a/\\u003cb\\u003e\\"c\\"","s":404,"id":"id\\u00261"}',
    );
    expect(parseErrorTemplate('<p>{{.message}} {{.path}}</p>', 'html', 't.html').render(values)).toBe('<p>route not found error /a/&#60;b&#62;&#34;c&#34;</p>');
  });

  it('refuses unclosed actions, unknown variables and other actions with a message naming the file', () => {
    expect(() => parseErrorTemplate('{{.message', 'html', 'e.html')).toThrow('e.html: unclosed action "{{" at offset 0');
    expect(() => parseErrorTemplate('{{.status}}', 'html', 'e.html')).toThrow('e.html: unsupported template action "{{.status}}"');
    expect(() => parseErrorTemplate('{{if .message}}x{{end}}', 'html', 'e.html')).toThrow(/unsupported template action/);
  });

  it('titles the default page "<status> <message>"', () => {
    expect(DEFAULT_HTML_TEMPLATE.render(values)).toContain('<title>404 route not found error</title>');
  });
});
