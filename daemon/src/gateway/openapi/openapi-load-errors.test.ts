import { describe, expect, it } from 'vitest';
import { load, problems } from '../config/testing/config-files.js';
import { PETS_YAML } from './testing/pets-api.js';

const hcl = (file: string): string => `server {
  endpoint "/**" {
    proxy { backend = "pets" }
  }
}
definitions {
  backend "pets" {
    origin = "http://127.0.0.1:9"
    openapi {
      file = "${file}"
    }
  }
}
`;

describe('openapi: the document at load', () => {
  it('loads a valid document, and lists the file among the referenced files (a save reloads)', async () => {
    const loaded = await load({ 'portico.hcl': hcl('api/pets.yaml'), 'api/pets.yaml': PETS_YAML });
    expect(loaded.messages).toEqual([]);
    expect(loaded.config?.backends['pets']?.openapi).toMatchObject({ file: `${loaded.dir}/api/pets.yaml`, ignoreRequestViolations: false, ignoreResponseViolations: false });
    expect(loaded.referencedFiles).toContain(`${loaded.dir}/api/pets.yaml`);
  });

  it('refuses a missing file, pointing at the file attribute', async () => {
    const [message, ...rest] = await problems(hcl('missing.yaml'));
    expect(message).toMatch(/^portico\.hcl:10,14-28: Unreadable file; The file "missing\.yaml" \(.*missing\.yaml\) does not exist\.$/);
    expect(rest).toEqual([]);
  });

  it('refuses broken YAML with the position inside the OpenAPI file', async () => {
    const broken = 'openapi: 3.0.3\ninfo:\n  title: x\n   version: "1"\npaths: {}\n';
    expect(await problems(hcl('pets.yaml'), { 'pets.yaml': broken })).toEqual([
      'portico.hcl:10,14-25: Invalid OpenAPI file; pets.yaml:3,10: Nested mappings are not allowed in compact mappings',
    ]);
    expect(await problems(hcl('pets.json'), { 'pets.json': '{"openapi": "3.0.3",\n  "info": {\n}' })).toEqual([
      expect.stringMatching(/^portico\.hcl:10,14-25: Invalid OpenAPI file; pets\.json:3,\d+: .+/),
    ]);
  });

  it('refuses a document that is not OpenAPI 3', async () => {
    expect(await problems(hcl('pets.yaml'), { 'pets.yaml': 'swagger: "2.0"\ninfo: { title: x, version: "1" }\npaths: {}\n' })).toEqual([
      'portico.hcl:10,14-25: Invalid OpenAPI file; pets.yaml: not an OpenAPI 3 document: it is Swagger 2.0; convert it to OpenAPI 3',
    ]);
    expect(await problems(hcl('pets.yaml'), { 'pets.yaml': '- just\n- a list\n' })).toEqual(['portico.hcl:10,14-25: Invalid OpenAPI file; pets.yaml is not an OpenAPI 3 document: it holds no mapping']);
  });

  it('refuses a document the OpenAPI schema rejects, positioned at the offending node', async () => {
    const noResponses = 'openapi: 3.0.3\ninfo: { title: x, version: "1" }\npaths:\n  /pets:\n    get:\n      summary: list\n';
    expect(await problems(hcl('pets.yaml'), { 'pets.yaml': noResponses })).toEqual([
      "portico.hcl:10,14-25: Invalid OpenAPI document; pets.yaml:6,7: /paths/~1pets/get must have required property 'responses' (not a valid OpenAPI 3.0.3 document)",
    ]);
    const danglingRef = PETS_YAML.replace('$ref: "#/components/schemas/Pet" }\n    post', '$ref: "#/components/schemas/Cat" }\n    post');
    expect(await problems(hcl('pets.yaml'), { 'pets.yaml': danglingRef })).toEqual([expect.stringMatching(/^portico\.hcl:10,14-25: Invalid OpenAPI document; pets\.yaml:1,1: .*#\/components\/schemas\/Cat/)]);
  });
});
