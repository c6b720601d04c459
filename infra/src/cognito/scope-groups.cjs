// Cognito pre-token-generation trigger (event version V2_0; deployed inline as index.js, Node.js 22;
// oauth.ts). Scopes belong to the app client, so every person of the pool could request every
// scope it allows; this trigger makes them belong to people: a resource-server scope stays in the
// access token only for a member of the Cognito group of the same name (created by the stack,
// one per `oauth.cognito.scopes` entry). A person in none of those groups gets NO_GROUP_SCOPES
// (`oauth.cognito.selfSignUpScopes`: what a self-registered person reaches; empty without
// self sign-up). Other scopes (`openid`) pass. No dependencies; any error refuses the sign-in.
'use strict';

const RESOURCE_SERVER_ID = process.env.RESOURCE_SERVER_ID;
if (!RESOURCE_SERVER_ID) throw new Error('RESOURCE_SERVER_ID is not set');
const PREFIX = `${RESOURCE_SERVER_ID}/`;
/** Scope names of the resource server; each has a group of the same name. */
const SCOPES = new Set(JSON.parse(process.env.SCOPE_GROUPS || '[]'));
/** Scope names a person in none of those groups keeps. */
const NO_GROUP_SCOPES = new Set(JSON.parse(process.env.NO_GROUP_SCOPES || '[]'));

exports.handler = async (event) => {
  const request = event.request || {};
  const groups = ((request.groupConfiguration || {}).groupsToOverride || []).filter((g) => SCOPES.has(g));
  const allowed = groups.length > 0 ? new Set(groups) : NO_GROUP_SCOPES;
  const scopesToSuppress = (request.scopes || []).filter((scope) => {
    if (!scope.startsWith(PREFIX)) return false;
    const name = scope.slice(PREFIX.length);
    return !(SCOPES.has(name) && allowed.has(name));
  });
  event.response = { claimsAndScopeOverrideDetails: { accessTokenGeneration: { scopesToSuppress } } };
  return event;
};
