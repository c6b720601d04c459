// Lambda@Edge, origin response (deployed inline as index.js, Node.js 22; front-door.ts).
// API Gateway renames the WWW-Authenticate header of mcp-server's 401/403 to
// x-amzn-remapped-www-authenticate, which breaks OAuth discovery for clients that only read the
// header. Origin-response functions run on error responses too (viewer-response ones do not), so
// this one puts the challenge back: the server's own value when the renamed header is visible
// here, else, on a 401, the discovery part of it built from the request
// (`Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource<path>"`, as the server
// builds it). Everything else passes untouched. No dependencies; runs per origin response.
'use strict';

// Set at synth (front-door.ts): the origin of MCP_RESOURCE_URL when it is known then; empty: the
// distribution's own domain, from the event.
const RESOURCE_ORIGIN = '';
const REMAPPED = 'x-amzn-remapped-www-authenticate';
const WELL_KNOWN = '/.well-known/oauth-protected-resource';
// The paths mcp-server authenticates; anything else gets the root metadata URL.
const MCP_PATH = /^\/mcp(\/[A-Za-z0-9_-]+)?$/;

exports.handler = async (event) => {
  const { config, request, response } = event.Records[0].cf;
  if (response.status !== '401' && response.status !== '403') return response;
  const headers = response.headers;
  if (headers['www-authenticate']) return response;
  let value;
  const remapped = headers[REMAPPED];
  if (remapped && remapped.length > 0 && remapped[0].value) {
    value = remapped[0].value;
    delete headers[REMAPPED];
  } else if (response.status === '401') {
    // Without the server's header there is no error= or scope= to copy: discovery is enough.
    const origin = RESOURCE_ORIGIN || `https://${config.distributionDomainName}`;
    const path = MCP_PATH.test(request.uri) ? request.uri : '';
    value = `Bearer resource_metadata="${origin}${WELL_KNOWN}${path}"`;
  } else {
    // A 403 without the server's challenge (an origin or host refusal): nothing to restore.
    return response;
  }
  headers['www-authenticate'] = [{ key: 'WWW-Authenticate', value }];
  return response;
};
