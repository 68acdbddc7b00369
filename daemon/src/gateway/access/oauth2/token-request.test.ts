import { describe, expect, it } from 'vitest';
import { parseTokenAnswer, tokenRequest, TokenRequestError } from './token-request.js';

const answer = (status: number, json: unknown) => ({ status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(json)), json });

describe('token requests (authorization code and client credentials)', () => {
  it('asks for JSON, authenticates with client_secret_basic (each part form-encoded) or client_secret_post, and sorts the parameters', () => {
    const basic = tokenRequest({ clientId: 'my client', clientSecret: 'pass:word+', authMethod: 'client_secret_basic', scope: 'a b' }, 'https://as.example/token', { grant_type: 'authorization_code', code: 'c', redirect_uri: 'https://app/cb' }, 'h', 'id');
    expect(basic.headers).toEqual({ accept: 'application/json', authorization: `Basic ${Buffer.from('my+client:pass%3Aword%2B').toString('base64')}` });
    expect(basic.form?.toString()).toBe('code=c&grant_type=authorization_code&redirect_uri=https%3A%2F%2Fapp%2Fcb&scope=a+b');
    const post = tokenRequest({ clientId: 'c', clientSecret: 's', authMethod: 'client_secret_post', scope: null }, 'https://as.example/token', { grant_type: 'client_credentials' }, 'h', 'id');
    expect(post.headers).toEqual({ accept: 'application/json' });
    expect(post.form?.toString()).toBe('client_id=c&client_secret=s&grant_type=client_credentials');
  });

  it('takes a 200 with an access_token (expires_in given as a string too), and names the server\'s error otherwise', () => {
    expect(parseTokenAnswer(answer(200, { access_token: 't', expires_in: '60' }), 'u')).toMatchObject({ access_token: 't', expires_in: 60 });
    expect(() => parseTokenAnswer(answer(400, { error: 'invalid_grant', error_description: 'code used' }), 'u')).toThrow(new TokenRequestError('token endpoint u answered 400: invalid_grant (code used)'));
    expect(() => parseTokenAnswer(answer(200, { token_type: 'Bearer' }), 'u')).toThrow(/no access_token/);
  });
});
